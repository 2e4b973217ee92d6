/*
 * The sandbox's violation record (violation.h): its writer and the line it shows. The
 * reader is violation_read.c, apart, so that srt-seccomp, which only writes, links no
 * JSON parser.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util.h"
#include "violation.h"

const char *const violation_kind_names[VK_MAX] = {
	[VK_FILE_WRITE] = "file-write",
	[VK_FILE_READ] = "file-read",
	[VK_CONNECT] = "direct-connect",
	[VK_LEFT_OUT] = "left-out",
};

/* How much of the path and the reason a record shows: all of them, unless the record
 * would not fit in one atomic write (violation_format cuts them further). */
struct cut {
	size_t path, reason;
};

static struct cut
cut_default(const struct violation *v)
{
	struct cut c = { 0, 0 };

	if (v->kind == VK_FILE_WRITE || v->kind == VK_FILE_READ) {
		c.path = strlen(v->path);
		c.reason = strlen(v->reason);
		if (c.path > VIOL_PATH_SHOWN)
			c.path = VIOL_PATH_SHOWN;
		if (c.reason > VIOL_REASON_SHOWN)
			c.reason = VIOL_REASON_SHOWN;
	}
	return c;
}

static char *
line_cut(const struct violation *v, struct cut c)
{
	bool pcut, rcut;

	switch (v->kind) {
	case VK_FILE_WRITE:
	case VK_FILE_READ:
		pcut = v->path_cut || c.path < strlen(v->path);
		rcut = c.reason < strlen(v->reason);
		return xasprintf("deny %s %.*s%s (%.*s%s)",
		    v->kind == VK_FILE_WRITE ? "file-write" : "file-read", (int)c.path, v->path,
		    pcut ? "..." : "", (int)c.reason, v->reason, rcut ? "..." : "");
	case VK_CONNECT:
		return xasprintf("deny network-outbound %s%s%s:%u (%s)",
		    strchr(v->addr, ':') != NULL ? "[" : "", v->addr,
		    strchr(v->addr, ':') != NULL ? "]" : "", v->port, VIOL_WHY_DIRECT);
	default:
		return xasprintf("(%llu more violations left out: at most %d are reported a "
				 "run)",
		    (unsigned long long)v->count, VIOL_LINES_MAX);
	}
}

char *
violation_line(const struct violation *v)
{
	return line_cut(v, cut_default(v));
}

static void
members_cut(struct buf *b, const struct violation *v, const char *line, struct cut c)
{
	buf_adds(b, "\"time\":");
	buf_add_jstr(b, v->time, strlen(v->time));
	buf_addf(b, ",\"kind\":\"%s\"",
	    util_enum_name(violation_kind_names, VK_MAX, v->kind, "left-out"));
	switch (v->kind) {
	case VK_FILE_WRITE:
	case VK_FILE_READ:
		buf_adds(b, ",\"operation\":");
		buf_add_jstr(b, v->op, strlen(v->op));
		buf_adds(b, ",\"path\":");
		buf_add_jstr(b, v->path, c.path);
		if (v->path_cut || c.path < strlen(v->path))
			buf_adds(b, ",\"path_cut\":true");
		buf_adds(b, ",\"reason\":");
		buf_add_jstr(b, v->reason, c.reason);
		break;
	case VK_CONNECT:
		buf_adds(b, ",\"operation\":");
		buf_add_jstr(b, v->op, strlen(v->op));
		buf_adds(b, ",\"protocol\":");
		buf_add_jstr(b, v->proto, strlen(v->proto));
		buf_adds(b, ",\"address\":");
		buf_add_jstr(b, v->addr, strlen(v->addr));
		buf_addf(b, ",\"port\":%u", v->port);
		break;
	default:
		buf_addf(b, ",\"count\":%llu", (unsigned long long)v->count);
		break;
	}
	buf_adds(b, ",\"violation\":");
	buf_add_jstr(b, line, strlen(line));
}

void
violation_format_members(struct buf *b, const struct violation *v, const char *line)
{
	members_cut(b, v, line, cut_default(v));
}

/*
 * One record in at most VIOL_RECORD_MAX bytes: a write of that much to a pipe is never
 * torn, and never half done when the pipe is full. The escaper may make a byte six
 * (\u00XX, or \ufffd for one that is not UTF-8), and the path is written twice (alone and
 * in the line), so a long path, then a long reason, is cut until the record fits.
 */
void
violation_format(struct buf *b, const struct violation *v)
{
	struct cut c = cut_default(v);
	size_t start = b->len;
	char *line;

	for (;;) {
		line = line_cut(v, c);
		buf_addc(b, '{');
		members_cut(b, v, line, c);
		buf_adds(b, "}\n");
		free(line);
		/* (At least the path's "/" and a byte of the reason stay: a record without
		 * them would not be one.) */
		if (b->len - start <= VIOL_RECORD_MAX || (c.path <= 1 && c.reason <= 1))
			return;
		b->len = start;
		if (c.path > 1)
			c.path /= 2;
		else
			c.reason /= 2;
	}
}
