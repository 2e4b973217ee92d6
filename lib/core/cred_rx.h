/*
 * credentials.*.extract: a JavaScript regular expression (no flags), run over a file or
 * a variable's value to find the credential spans (capture group 1).
 *
 * srt has no JavaScript regex engine: the pattern is translated to a POSIX extended
 * expression for regcomp(3) (glibc, byte-wise, with REG_STARTEND so the text may hold
 * NUL bytes). What translates: literals and escapes (\n \t \xHH \uHHHH \/ ...), ".",
 * classes with ranges and \d \w \s (and their negations), groups, (?:...) and
 * (?<name>...), alternation, ^ $ \b \B, and the greedy quantifiers * + ? {n} {n,} {n,m}.
 * What does not is refused with a message when the settings are read, never run
 * differently: lazy quantifiers, lookaround, back references, \cX, \p{...}.
 * POSIX picks the leftmost-longest match where JavaScript picks the leftmost match by
 * alternative order; for the patterns extract is written with (key: value, one token)
 * the two agree.
 */
#ifndef SRT_CRED_RX_H
#define SRT_CRED_RX_H

#include <stdbool.h>
#include <stddef.h>

struct cred_rx;

/* 0, or -1 with a static message in *why. groups: the pattern's capture groups. */
int cred_rx_compile(const char *pattern, struct cred_rx **out, int *groups, const char **why);
void cred_rx_free(struct cred_rx *rx);

/* The first match in p[from..len): 1 with the whole match in m[0..1] and group 1 in
 * m[2..3] (-1, -1 when group 1 took no part), 0 when there is none. */
int cred_rx_exec(const struct cred_rx *rx, const char *p, size_t len, size_t from, long m[4]);

#endif
