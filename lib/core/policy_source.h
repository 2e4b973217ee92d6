/*
 * Where a program's policy comes from, the same way in every program: -p FILE (a
 * compiled policy), -s FILE (a settings file, compiled in memory), --policy-fd N (a
 * compiled policy on a descriptor), or, when none is given, ~/.srt-settings.json (and
 * for srt the built-in default policy when that file does not exist). Every problem is
 * reported through errs, warnings through warns, each "FILE: message" or
 * "FILE: PATH: message".
 *
 * Whatever the source, the policy is merged with the managed policy (managed.h) when
 * there is one: the image a program gets is always the merge, made anew from the managed
 * file as it is and the user's layer (what a compiled image says about its own layers is
 * never believed). An untrusted or invalid managed file is an error like any other.
 */
#ifndef SRT_POLICY_SOURCE_H
#define SRT_POLICY_SOURCE_H

#include "managed.h"
#include "policy.h"
#include "settings.h"
#include "util.h"

enum policy_fallback {
	POLICY_SOURCE_REQUIRED,           /* one of the three must be given */
	POLICY_SOURCE_DEFAULT_FILE,       /* else ~/.srt-settings.json */
	POLICY_SOURCE_DEFAULT_OR_BUILTIN, /* else that file, or the built-in default policy
	                                   when it does not exist */
};

struct policy_source {
	const char *policy_path;   /* -p */
	const char *settings_path; /* -s */
	int policy_fd;             /* --policy-fd, or -1 */
	/* A settings document in memory (a line of srt's --control-fd), named settings_name
	 * in messages; used when none of the three above is given. */
	const char *settings_text;
	size_t settings_len;
	const char *settings_name;
	enum policy_fallback fallback;
	/* How the file of -p or -s is opened: NULL for open(2) itself; else a descriptor
	 * on path, or -1 with errno (a narrowed proxy asks its opener, proxy_sandbox.h). */
	int (*open_file)(void *arg, const char *path);
	void *open_arg;
	/* The managed layer: NULL to read managed_path now; a program that loads its policy
	 * again after narrowing itself (a proxy's SIGHUP) passes the one it read at start. */
	const struct managed *managed;
	/* Where the warnings of merging with the managed layer go (a user's entry it
	 * overrides); NULL: with the others, in warns. */
	struct diags *managed_warns;
};

/*
 * Load and verify the policy into *polp. With set non-NULL the settings are filled too
 * (parsed from -s, rebuilt from a compiled policy); with pathp non-NULL *pathp is the file
 * read, as named or found (NULL for a descriptor or the built-in defaults; caller frees).
 * 0, or -1 with at least one message in errs (the out-parameters are then empty).
 */
int policy_source_load(const struct policy_source *src, struct policy **polp,
    struct settings *set, char **pathp, struct diags *errs, struct diags *warns);

#endif
