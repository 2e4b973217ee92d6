/*
 * The macOS Seatbelt profile's own declarations, shared by its files: plan_macos.c (the
 * fixed tables, the settings' lists and the order of the profile), plan_macos_paths.c
 * (paths as the reference handles them) and plan_macos_rules.c (filters and the file
 * system's rules). Nothing outside them includes it: plan.h is the interface.
 */
#ifndef SRT_PLAN_MACOS_INT_H
#define SRT_PLAN_MACOS_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "plan.h"
#include "util.h"

#define nitems(a) (sizeof(a) / sizeof((a)[0]))

enum kind {
	K_ALLOW,
	K_DENY
};

/* One filesystem entry: a name, or a glob; an anchored glob keeps its anchor (a name on
 * disk, which may hold glob characters of its own) literal in its regex. */
struct ment {
	char *path;
	char *anchor; /* NULL unless anchored */
	bool glob;
};

struct ments {
	struct ment *v;
	size_t n, cap;
};

struct mb {
	const struct settings *s;
	const char *cwd, *home;
	struct strlist lines;
	char *tag; /* the log tag, quoted */
};

/* What the read and write rules are made of (plan_macos_rules.c). The denies from
 * cred_from on are the credentials files': no allowRead or write root is carved out of
 * them. */
struct readcfg {
	struct ments denies, allows, write_roots;
	size_t cred_from;
};

/* plan_macos_paths.c: the containers */
void plan_macos_ments_add(struct ments *l, char *path, char *anchor, bool glob);
void plan_macos_ments_add_copy(struct ments *l, const struct ment *e);
void plan_macos_ments_free(struct ments *l);
void plan_macos_set_add(struct strlist *s, const char *v);
void plan_macos_set_add_owned(struct strlist *s, char *v);

/* plan_macos_paths.c: path text and the disk */
char *plan_macos_js_resolve(const char *cwd, const char *p);
char *plan_macos_js_join(const char *a, const char *b);
char *plan_macos_js_dirname(const char *p);
char *plan_macos_js_basename(const char *p);
void plan_macos_ancestors(const char *p, struct strlist *out);
bool plan_macos_starts_with(const char *s, const char *prefix);
char *plan_macos_normalize_for_sandbox(const struct mb *b, const char *spelling, bool literal);
void plan_macos_add_spelled(const struct mb *b, struct ments *l, const char *spelling);
void plan_macos_add_literal(const struct mb *b, struct ments *l, const char *p);
void plan_macos_literal_readings(
    const struct mb *b, const char *spelling, enum kind k, struct ments *out);
void plan_macos_caller_entries(const struct mb *b, enum kind k, const struct strlist *spelled,
    const struct strlist *literal, struct ments *out);
char *plan_macos_entry_base_dir(const struct ment *e);
void plan_macos_in_both_spellings(
    const struct mb *b, enum kind k, const struct ment *e, struct ments *out);

/* plan_macos_rules.c */
char *plan_macos_json_quote(const char *s);
bool plan_macos_entry_matches(const struct ment *e, const char *s, bool subtree);
void plan_macos_line(struct mb *b, const char *s);
void plan_macos_read_rules(struct mb *b, const struct readcfg *rc);
void plan_macos_read_deny_unlink_rules(struct mb *b, const struct readcfg *rc);
void plan_macos_write_rules(struct mb *b, const struct readcfg *rc,
    const struct strlist *deny_spelled, const struct strlist *deny_literal,
    bool allow_git_config);

#endif /* SRT_PLAN_MACOS_INT_H */
