/*
 * Globs as regular expressions, for the macOS Seatbelt profile (BEHAVIOR §6), and a
 * matcher that answers what those expressions would answer.
 *
 * The syntax is the reference's (as in glob.h) read over the whole string rather than one
 * component at a time: "/" a separator; "?" one character but "/"; "*" any run of those;
 * "**" any run of characters, "/" among them; "**" followed by "/" any number of
 * directories; "[...]" one character of a set that runs from the "[" to the first "]"
 * (every character between is a member, "-" makes a range except first or last, "^" and
 * "!" do not negate, and "/" may be a member). Brackets that spell no set (empty, or a
 * range running backwards) are text, and so are a "[" that nothing closes and a "]" that
 * nothing opens. Adjacent wildcards are folded to the fewest that match the same.
 *
 * The translation: "*" [^/]*, "?" [^/], "**" .*, a "**" that a "/" follows an optional
 * group of any characters ending in "/", a set as written with the characters special in
 * a class escaped, every other character escaped where a
 * regular expression would read it, the whole anchored ^...$. For a deny rule the
 * expression also takes everything beneath a match: ^...(/.*)?$.
 */
#ifndef SRT_GLOBRE_H
#define SRT_GLOBRE_H

#include <stdbool.h>

struct globre;

/* Every string is a pattern: this never fails. */
struct globre *globre_parse(const char *pattern);
void globre_free(struct globre *g);

/* The regular expression, "^...$", or "^...(/.*)?$" with subtree. Caller frees. */
char *globre_regex(const struct globre *g, bool subtree);

/*
 * Whether s matches, as the regular expression of globre_regex (an ECMAScript one without
 * flags: "." takes no line terminator) would answer. Characters are UTF-8 sequences; a
 * byte that starts none is one character of its own.
 */
bool globre_match(const struct globre *g, const char *s, bool subtree);

/* text with every character a regular expression reads specially escaped. Caller frees. */
char *glob_regex_escape_literal(const char *text);

/* The same, for a pattern as a string: parse, translate or match, free. */
char *glob_to_regex(const char *pattern, bool subtree);
bool glob_regex_match(const char *pattern, const char *s, bool subtree);

#endif
