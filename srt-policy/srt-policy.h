/* srt-policy: the policy compiler and inspector (SPEC §2). */
#ifndef SRT_POLICY_PROG_H
#define SRT_POLICY_PROG_H

#include "policy.h"
#include "settings.h"

/* Exit statuses (the man page's EXIT STATUS). */
#define EXIT_ALLOW 0
#define EXIT_DENY 1
#define EXIT_ERROR 2

/* The command line of one subcommand, after option parsing. */
struct opts {
	const char *cmd;
	const char *settings; /* -s, or NULL */
	const char *policy;   /* -p, or NULL */
	const char *output;   /* -o */
	const char *target;   /* --target */
	const char *cwd;      /* --cwd */
	const char *tmpdir;   /* --tmpdir */
	int unguarded;        /* --unguarded */
	int shell;            /* --shell */
	int layers;           /* --layers */
	int debug;            /* -d */
	int argc;             /* positional arguments */
	char **argv;
};

/* srt-policy.c */

/* load.c: the policy of -p, or of -s (default ~/.srt-settings.json), verified; with s
 * the settings too, with pathp the file read. Prints its messages; 0 or -1. */
int load_policy(const struct opts *o, struct policy **p, struct settings *s, char **pathp);

/* compile.c */
int cmd_check(const struct opts *o);
int cmd_compile(const struct opts *o);
int cmd_dump(const struct opts *o);

/* match.c */
int cmd_match(const struct opts *o);

/* plan.c */
int cmd_plan(const struct opts *o);
/* What a plan is made for: the working directory (--cwd, resolved), the home
 * directory, and the settings (s, loaded) with the file they came from (spath, as
 * load_policy names it; NULL for the defaults). */
struct plan_input {
	struct settings s;
	bool loaded;
	char *cwd, *home, *spath;
};
/* 0, or -1 with a message; plan_input_free either way. */
int plan_input_load(const struct opts *o, struct plan_input *in);
void plan_input_free(struct plan_input *in);
/* A text plan (macOS, Windows): build's, for the plan input (the settings file
 * resolved; must_exist: an error when it is gone) and the context every target starts
 * with, printed. 0, or EXIT_ERROR with a message. */
struct diags;
struct plan_ctx;
typedef int plan_text_fn(
    const struct settings *s, const struct plan_ctx *ctx, char **text, struct diags *errs);
int plan_text(const struct opts *o, bool must_exist, plan_text_fn *build);

/* plan_windows.c */
int plan_windows(const struct opts *o);

#endif
