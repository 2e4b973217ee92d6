/* JSON text for the decision log: escaping of arbitrary bytes, bounded. */
#ifndef SRT_JSONLOG_H
#define SRT_JSONLOG_H

#include <stddef.h>

/* A growable byte buffer. */
struct jbuf {
	char *p;
	size_t len, cap;
};
void jbuf_add(struct jbuf *b, const char *s, size_t n);
void jbuf_adds(struct jbuf *b, const char *s);
void jbuf_addf(struct jbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A JSON string literal (with the quotes) for len bytes of s: ", \ and controls escaped,
 * bytes that are not valid UTF-8 become U+FFFD, so the line always parses. s NULL: null. */
void jbuf_add_jstr(struct jbuf *b, const char *s, size_t len);
void jbuf_free(struct jbuf *b);

#endif
