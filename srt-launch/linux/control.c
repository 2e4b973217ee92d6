/*
 * Live policy updates (--control-fd N; srt(1) CONTROL CHANNEL). Each line on N is a whole
 * settings document. Its network part replaces the one in force in both proxies, for the
 * connections and requests that start from then on: the line is checked and compiled
 * here once (through policy_source, as the file at start was), and each running proxy
 * gets the compiled policy in a sealed memfd over its control socket and puts it in force
 * in one step of its loop, so that no request is judged by half of it. A proxy not
 * started yet starts with it. What a line changes outside the network part (the
 * filesystem, ignoreViolations, and the network options fixed at start) is not applied,
 * and said so. An invalid line is reported and changes nothing.
 *
 * The channel ending (EOF) leaves the policy last applied in force, as the reference
 * does; a read error before any line came ends the run, as the reference's does, since
 * the caller's updates would go nowhere.
 */
#include <sys/socket.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "fdpass.h"
#include "launch.h"
#include "policy_source.h"

#define CONTROL_LINE_MAX (8u << 20) /* a settings document on one line */
#define CONTROL_REPLY_MS 5000       /* a proxy's answer to an update */

/* The network options a proxy cannot take live: they shape the sandbox at start. */
static const char *const fixed_network[] = {
	"httpProxyPort",
	"socksProxyPort",
	"allowAllUnixSockets",
	"allowUnixSockets",
	"allowLocalBinding",
	"allowMachLookup",
};

int
control_open(struct launch *l)
{
	int fl;

	if (l->control.fd == -1)
		return 0;
	/* A descriptor srt cannot read from would take updates nowhere, the tightening
	 * ones included: refused before anything runs. */
	if ((fl = fcntl(l->control.fd, F_GETFL)) == -1 || (fl & O_ACCMODE) == O_WRONLY) {
		log_warnx("--control-fd %d is not usable: %s; refusing to run the command "
			  "without the control channel it asks for",
		    l->control.fd, fl == -1 ? strerror(errno) : "it is not open for reading");
		return -1;
	}
	/* Ours alone: no helper and never the command. */
	if (fcntl(l->control.fd, F_SETFD, FD_CLOEXEC) == -1) {
		log_warn("--control-fd %d", l->control.fd);
		return -1;
	}
	return 0;
}

/* The keys outside network whose values differ, and network's fixed ones, as text. */
static char *
control_not_live(const struct settings *was, const struct settings *now)
{
	char *a = settings_to_json(was), *b = settings_to_json(now);
	cJSON *ja = cJSON_Parse(a), *jb = cJSON_Parse(b), *x, *y;
	struct buf out = { 0 };
	size_t i;

	free(a);
	free(b);
	if (ja == NULL || jb == NULL)
		goto out;
	cJSON_ArrayForEach(x, jb)
	{
		if (strcmp(x->string, "network") == 0)
			continue;
		y = cJSON_GetObjectItemCaseSensitive(ja, x->string);
		if (y == NULL || !cJSON_Compare(x, y, 1))
			buf_addf(&out, "%s%s", out.len ? ", " : "", x->string);
	}
	cJSON_ArrayForEach(x, ja) if (cJSON_GetObjectItemCaseSensitive(jb, x->string) == NULL)
	    buf_addf(&out, "%s%s", out.len ? ", " : "", x->string);
	for (i = 0; i < sizeof(fixed_network) / sizeof(fixed_network[0]); i++) {
		x = cJSON_GetObjectItemCaseSensitive(
		    cJSON_GetObjectItemCaseSensitive(jb, "network"), fixed_network[i]);
		y = cJSON_GetObjectItemCaseSensitive(
		    cJSON_GetObjectItemCaseSensitive(ja, "network"), fixed_network[i]);
		if ((x == NULL) != (y == NULL) || (x != NULL && !cJSON_Compare(x, y, 1)))
			buf_addf(&out, "%snetwork.%s", out.len ? ", " : "", fixed_network[i]);
	}
out:
	cJSON_Delete(ja);
	cJSON_Delete(jb);
	return out.len ? buf_steal(&out) : (buf_free(&out), NULL);
}

/* One update to one proxy: the memfd, then its answer line. 0, or -1 with a warning. */
static int
control_send(struct launch *l, enum proxy_kind k, int memfd)
{
	const char *prog = k == PK_HTTP ? "srt-httpd" : "srt-socksd";
	long deadline = launch_now_ms() + CONTROL_REPLY_MS;
	char reply[1024];
	size_t got = 0;
	ssize_t n;

	if (fdpass_send(l->control.proxy[k], "P", 1, &memfd, 1) == -1) {
		log_warn("control: %s", prog);
		return -1;
	}
	while (got < sizeof(reply) - 1 && (got == 0 || reply[got - 1] != '\n')) {
		struct pollfd p = { .fd = l->control.proxy[k], .events = POLLIN };
		long left = deadline - launch_now_ms();

		if (left <= 0 || poll(&p, 1, (int)left) == 0) {
			log_warnx("control: %s did not answer the update", prog);
			return -1;
		}
		n = read(l->control.proxy[k], reply + got, sizeof(reply) - 1 - got);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0) {
			log_warnx("control: %s is gone", prog);
			return -1;
		}
		got += (size_t)n;
	}
	reply[got] = '\0';
	reply[strcspn(reply, "\n")] = '\0';
	if (strcmp(reply, "ok") != 0) {
		log_warnx("control: %s refused the update: %s", prog, reply);
		return -1;
	}
	return 0;
}

static void
control_apply(struct launch *l, const char *line, size_t len)
{
	struct policy_source src = { .policy_path = NULL,
		.settings_path = NULL,
		.policy_fd = -1,
		.settings_text = line,
		.settings_len = len,
		.fallback = POLICY_SOURCE_REQUIRED };
	struct diags errs = { 0 }, warns = { 0 };
	struct settings set;
	struct policy *pol;
	char name[64], *ignored;
	const uint8_t *bytes;
	size_t i, blen;
	int k, memfd;

	snprintf(name, sizeof(name), "control fd %d", l->control.fd);
	src.settings_name = name;
	if (policy_source_load(&src, &pol, &set, NULL, &errs, &warns) != 0) {
		log_warnx("invalid settings on control fd %d: ignored, the policy in force is "
			  "unchanged",
		    l->control.fd);
		for (i = 0; i < errs.msgs.n; i++)
			log_warnx("%s", errs.msgs.v[i]);
		goto out;
	}
	for (i = 0; i < warns.msgs.n; i++)
		log_warnx("warning: %s", warns.msgs.v[i]);
	if ((ignored = control_not_live(&l->set, &set)) != NULL) {
		log_warnx("control fd %d: not applied while the command runs (only the network "
			  "rules are live): %s",
		    l->control.fd, ignored);
		free(ignored);
	}
	settings_free(&set);
	bytes = policy_bytes(pol, &blen);
	for (k = 0; k < PK_MAX; k++) {
		if (l->proxy.pid[k] <= 0 || l->control.proxy[k] == -1)
			continue;
		if ((memfd = memfd_sealed("srt-policy", bytes, blen)) == -1)
			continue;
		(void)control_send(l, (enum proxy_kind)k, memfd);
		close(memfd);
	}
	/* A proxy that starts later starts with it. */
	policy_free(l->pol);
	l->pol = pol;
	log_debug("control fd %d: policy updated", l->control.fd);
out:
	diags_free(&errs);
	diags_free(&warns);
}

/* Whether the line holds anything but white space (an empty line is no update). */
static bool
control_blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
			return false;
	return true;
}

void
control_read(struct launch *l)
{
	char tmp[65536], *nl;
	ssize_t n;
	size_t len;

	n = read(l->control.fd, tmp, sizeof(tmp));
	if (n == -1 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		if (n == 0)
			log_debug("control fd %d: end of input; the policy last applied stays",
			    l->control.fd);
		else if (l->control.lines > 0)
			log_warnx("error reading control fd %d: %s; the control channel is "
				  "closed, no further updates will be applied",
			    l->control.fd, strerror(errno));
		else {
			log_warnx(
			    "control fd %d failed before delivering an update: %s; "
			    "refusing to run the command without the control channel it asks "
			    "for",
			    l->control.fd, strerror(errno));
			l->control.failed = true;
			(void)kill(l->sandbox.bwrap_pid, SIGTERM);
		}
		/* A partial last line is still an update. */
		if (n == 0 && l->control.buf.len > 0 && !l->control.skip) {
			l->control.lines++;
			if (!control_blank(
				l->control.buf.p + l->control.buf.off, l->control.buf.len))
				control_apply(l, l->control.buf.p + l->control.buf.off,
				    l->control.buf.len);
		}
		buf_free(&l->control.buf);
		fd_close(&l->control.fd);
		return;
	}
	buf_add(&l->control.buf, tmp, (size_t)n);
	while ((nl = memchr(l->control.buf.p + l->control.buf.off, '\n', l->control.buf.len)) !=
	    NULL) {
		len = (size_t)(nl - (l->control.buf.p + l->control.buf.off));
		l->control.lines++;
		if (!l->control.skip &&
		    !control_blank(l->control.buf.p + l->control.buf.off, len))
			control_apply(l, l->control.buf.p + l->control.buf.off, len);
		l->control.skip = false;
		buf_consume(&l->control.buf, len + 1);
	}
	if (l->control.buf.len > CONTROL_LINE_MAX) {
		log_warnx("invalid settings on control fd %d: a line longer than %u bytes: "
			  "ignored, the policy in force is unchanged",
		    l->control.fd, CONTROL_LINE_MAX);
		buf_free(&l->control.buf);
		l->control.skip = true;
	}
}
