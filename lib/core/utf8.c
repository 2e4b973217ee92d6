/* UTF-8 decoding and sanitising (utf8.h). */
#include "utf8.h"

size_t
utf8_decode(const unsigned char *s, size_t n, long *cp)
{
	size_t need, i;
	long c, min;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if ((s[0] & 0xe0) == 0xc0) {
		need = 2, c = s[0] & 0x1f, min = 0x80;
	} else if ((s[0] & 0xf0) == 0xe0) {
		need = 3, c = s[0] & 0x0f, min = 0x800;
	} else if ((s[0] & 0xf8) == 0xf0) {
		need = 4, c = s[0] & 0x07, min = 0x10000;
	} else
		goto bad;
	if (need > n)
		goto bad;
	for (i = 1; i < need; i++) {
		if ((s[i] & 0xc0) != 0x80)
			goto bad;
		c = c << 6 | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates and values past U+10FFFF are not UTF-8. */
	if (c < min || (c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff)
		goto bad;
	*cp = c;
	return need;
bad:
	*cp = UTF8_BAD;
	return 1;
}

size_t
utf8_encode(long c, char *out)
{
	if (c < 0x80) {
		out[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		out[0] = (char)(0xc0 | c >> 6);
		out[1] = (char)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c < 0x10000) {
		out[0] = (char)(0xe0 | c >> 12);
		out[1] = (char)(0x80 | (c >> 6 & 0x3f));
		out[2] = (char)(0x80 | (c & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | c >> 18);
	out[1] = (char)(0x80 | (c >> 12 & 0x3f));
	out[2] = (char)(0x80 | (c >> 6 & 0x3f));
	out[3] = (char)(0x80 | (c & 0x3f));
	return 4;
}

static int
utf8_control(long c)
{
	return c < 0x20 || (c >= 0x7f && c <= 0x9f);
}

static int
utf8_invisible(long c)
{
	return c == 0xad || c == 0x61c || (c >= 0x200b && c <= 0x200f) || c == 0x2028 ||
	    c == 0x2029 || (c >= 0x202a && c <= 0x202e) || (c >= 0x2060 && c <= 0x2064) ||
	    (c >= 0x2066 && c <= 0x2069) || c == 0xfeff || (c >= 0xe0000 && c <= 0xe007f);
}

size_t
utf8_sanitise(const char *in, size_t len, unsigned flags, size_t max_units, char *out)
{
	const unsigned char *s = (const unsigned char *)in;
	size_t i = 0, o = 0, units = 0, start;
	int in_run = 0, run;
	long c;

	while (i < len && (max_units == 0 || units < max_units)) {
		i += utf8_decode(s + i, len - i, &c);
		if (c == UTF8_BAD)
			run = (flags & UTF8_BAD_RUN) != 0;
		else
			run = utf8_control(c) ||
			    ((flags & UTF8_INVISIBLE) && utf8_invisible(c));
		if (run) {
			if (!in_run) {
				out[o++] = ' ';
				units++;
			}
			in_run = 1;
			continue;
		}
		in_run = 0;
		if (c == UTF8_BAD)
			c = 0xfffd;
		if ((flags & UTF8_NO_ANGLE) && (c == '<' || c == '>'))
			continue;
		if (max_units != 0 && c >= 0x10000 && units + 2 > max_units)
			c = 0xfffd;
		o += utf8_encode(c, out + o);
		units += c >= 0x10000 ? 2 : 1;
	}
	if (flags & UTF8_TRIM) {
		while (o > 0 && out[o - 1] == ' ')
			o--;
		for (start = 0; start < o && out[start] == ' '; start++)
			;
		for (i = start; i < o; i++)
			out[i - start] = out[i];
		o -= start;
	}
	return o;
}
