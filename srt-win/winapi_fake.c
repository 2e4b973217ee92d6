/*
 * The recording fake of winapi.h, for the native build (tests only; `make win` never
 * links it). It keeps what Windows would keep in files under $SRT_WIN_FAKE_DIR, so that
 * several srt-win processes see one machine:
 *   dacl.jsonl     the explicit entries of each path's DACL (a path not listed has none)
 *   accounts       "user NAME SID PASSWORD" / "group NAME SID" / "member GROUP USER"
 *   records/NAME   the machine record
 *   wfp            one line per filter: "SUBLAYER NAME ..."
 *   state/         srt-win's per-user directory
 *   calls.log      one line per call that would change Windows, in order
 * Files themselves are the real local files (paths are POSIX). $SRT_WIN_FAKE_FAIL names
 * calls to fail ("dacl_set:/path" or "dacl_set"), to test what srt-win does then.
 * Processes are real: liveness from kill(2) and /proc, programs run with posix_spawn.
 */
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "srt-win.h"

extern char **environ;

static const char *
fake_dir(void)
{
	const char *d = getenv("SRT_WIN_FAKE_DIR");

	if (d == NULL || *d != '/')
		fatalx("srt-win (fake): SRT_WIN_FAKE_DIR must name the fake's directory");
	return d;
}

static char *
fake_path(const char *name)
{
	return xasprintf("%s/%s", fake_dir(), name);
}

static void logcall(const char *fmt, ...) SW_PRINTF(1, 2);

static void
logcall(const char *fmt, ...)
{
	char *p = fake_path("calls.log");
	FILE *f = fopen(p, "a");
	va_list ap;

	free(p);
	if (f == NULL)
		return;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
	fclose(f);
}

/* $SRT_WIN_FAKE_FAIL: "call" or "call:path", comma-separated. */
static int
should_fail(const char *call, const char *path)
{
	const char *f = getenv("SRT_WIN_FAKE_FAIL");
	char *want = path ? xasprintf("%s:%s", call, path) : NULL;
	char *list, *tok, *save = NULL;
	int hit = 0;

	if (f == NULL) {
		free(want);
		return 0;
	}
	list = xstrdup(f);
	for (tok = strtok_r(list, ",", &save); tok != NULL && !hit;
	     tok = strtok_r(NULL, ",", &save))
		hit = strcmp(tok, call) == 0 || (want != NULL && strcmp(tok, want) == 0);
	free(list);
	free(want);
	return hit;
}

/* --- paths ------------------------------------------------------------------------ */

int
wa_path_absolute(const char *p)
{
	return p[0] == '/';
}

char
wa_path_sep(void)
{
	return '/';
}

int
wa_path_kind(const char *p, enum wa_kind *kind)
{
	struct stat st;

	if (stat(p, &st) == -1) {
		if (errno == ENOENT || errno == ENOTDIR) {
			*kind = WA_MISSING;
			return 0;
		}
		return wa_fail(errno == EACCES, "%s: %s", p, strerror(errno));
	}
	*kind = S_ISDIR(st.st_mode) ? WA_DIR : WA_FILE;
	return 0;
}

int
wa_path_final(const char *p, char **out)
{
	char *r = realpath(p, NULL);

	if (r == NULL)
		return wa_fail(0, "%s: %s", p, strerror(errno));
	*out = xstrdup(r);
	free(r);
	return 0;
}

int
wa_mkdir(const char *p)
{
	logcall("mkdir %s", p);
	if (mkdir(p, 0755) == -1)
		return wa_fail(errno == EACCES, "mkdir %s: %s", p, strerror(errno));
	return 0;
}

int
wa_mkfile(const char *p)
{
	int fd;

	logcall("mkfile %s", p);
	if ((fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644)) == -1)
		return wa_fail(errno == EACCES, "create %s: %s", p, strerror(errno));
	close(fd);
	return 0;
}

int
wa_remove_empty(const char *p)
{
	struct stat st;

	if (lstat(p, &st) == -1)
		return errno == ENOENT ? 0 : wa_fail(0, "%s: %s", p, strerror(errno));
	if (S_ISDIR(st.st_mode)) {
		if (rmdir(p) == -1)
			return errno == ENOTEMPTY || errno == EEXIST
			    ? 1
			    : wa_fail(0, "rmdir %s: %s", p, strerror(errno));
	} else {
		if (st.st_size != 0)
			return 1;
		if (unlink(p) == -1)
			return wa_fail(0, "unlink %s: %s", p, strerror(errno));
	}
	logcall("remove %s", p);
	return 0;
}

int
wa_lock(const char *p, void **lock)
{
	int fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0600);

	if (fd == -1)
		return wa_fail(0, "%s: %s", p, strerror(errno));
	if (flock(fd, LOCK_EX) == -1) {
		close(fd);
		return wa_fail(0, "flock %s: %s", p, strerror(errno));
	}
	*lock = (void *)(intptr_t)(fd + 1);
	return 0;
}

void
wa_unlock(void *lock)
{
	close((int)(intptr_t)lock - 1);
}

int
wa_replace(const char *src, const char *dst)
{
	if (rename(src, dst) == -1)
		return wa_fail(0, "rename %s: %s", dst, strerror(errno));
	return 0;
}

FILE *
wa_fopen(const char *p, const char *mode)
{
	return fopen(p, mode);
}

int
wa_unlink(const char *p)
{
	return unlink(p);
}

int
wa_state_dir(char **out)
{
	char *d = fake_path("state");

	if (mkdir(d, 0700) == -1 && errno != EEXIST) {
		wa_fail(0, "%s: %s", d, strerror(errno));
		free(d);
		return -1;
	}
	*out = d;
	return 0;
}

int
wa_managed_dir(int make, char **path, int *exists, int *made)
{
	char *d = fake_path("ProgramData");
	struct stat st;

	*made = 0;
	if (mkdir(d, 0755) == -1 && errno != EEXIST) {
		wa_fail(0, "%s: %s", d, strerror(errno));
		free(d);
		return -1;
	}
	free(d);
	d = fake_path("ProgramData/srt");
	*exists = stat(d, &st) == 0;
	if (make && !*exists) {
		logcall("managed_dir_make %s O:BA D:P(SY:FA)(BA:FA)(BU:RX)", d);
		if (mkdir(d, 0755) == -1) {
			wa_fail(errno == EACCES, "mkdir %s: %s", d, strerror(errno));
			free(d);
			return -1;
		}
		*exists = *made = 1;
	}
	*path = d;
	return 0;
}

int
wa_self_path(char **out)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);

	if (n <= 0)
		return wa_fail(0, "/proc/self/exe: %s", strerror(errno));
	buf[n] = '\0';
	*out = xstrdup(buf);
	return 0;
}

int
wa_path_remote(const char *p)
{
	(void)p;
	return getenv("SRT_WIN_FAKE_REMOTE") != NULL;
}

int
wa_profile_dir(char **out)
{
	const char *h = getenv("HOME");

	if (h == NULL || *h != '/')
		return wa_fail(0, "no HOME");
	*out = sw_path_clean(h);
	return *out != NULL ? 0 : wa_fail(0, "HOME is not a clean absolute path");
}

char **
wa_environ(void)
{
	return environ;
}

/* --- DACLs ---------------------------------------------------------------------------- */

static char *
dacl_line(const char *p, const struct wa_dacl *d)
{
	struct buf b = { 0 };

	buf_add_jmember(&b, "{\"path\":", p);
	buf_addf(&b, ",\"protect\":%s,\"aces\":[", d->protect ? "true" : "false");
	for (size_t i = 0; i < d->n; i++) {
		buf_addf(&b, "%s{\"ace\":\"%s\",\"sid\":", i ? "," : "",
		    d->v[i].deny ? "deny" : "allow");
		buf_add_jstrs(&b, d->v[i].sid);
		buf_addf(&b, ",\"mask\":%lu,\"flags\":%u}", (unsigned long)d->v[i].mask,
		    (unsigned)d->v[i].flags);
	}
	buf_adds(&b, "]}");
	return buf_steal(&b);
}

/* The fake's DACL store, read whole: every path's line. */
struct store {
	struct strlist paths, lines;
};

static int
store_read(struct store *s)
{
	char *p = fake_path("dacl.jsonl"), *text = NULL, *line, *save = NULL, err[128];
	size_t len;
	FILE *f = fopen(p, "r");
	struct json_value *v;

	memset(s, 0, sizeof(*s));
	free(p);
	if (f == NULL)
		return 0;
	if (read_all(f, 64u << 20, &text, &len) != 0) {
		fclose(f);
		return wa_fail(0, "fake: dacl.jsonl unreadable");
	}
	fclose(f);
	for (line = strtok_r(text, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		const struct json_value *path;

		if ((v = json_tree_parse(line, strlen(line), err, sizeof(err))) == NULL ||
		    (path = json_tree_get(v, "path")) == NULL || path->type != JSON_STRING) {
			json_tree_free(v);
			free(text);
			return wa_fail(0, "fake: dacl.jsonl damaged: %s", err);
		}
		strlist_push(&s->paths, path->str);
		strlist_push(&s->lines, line);
		json_tree_free(v);
	}
	free(text);
	return 0;
}

static void
store_free(struct store *s)
{
	strlist_free(&s->paths);
	strlist_free(&s->lines);
}

int
wa_dacl_get(const char *p, struct wa_dacl *d)
{
	struct store s;
	struct json_value *v = NULL;
	const struct json_value *aces, *e, *pr;
	char err[128];
	size_t i;
	enum wa_kind k;

	memset(d, 0, sizeof(*d));
	if (should_fail("dacl_get", p))
		return wa_fail(1, "GetNamedSecurityInfoW %s: access denied (fake)", p);
	if (wa_path_kind(p, &k) != 0)
		return -1;
	if (k == WA_MISSING)
		return wa_fail(0, "GetNamedSecurityInfoW %s: the file does not exist", p);
	if (store_read(&s) != 0)
		return -1;
	for (i = 0; i < s.paths.n; i++)
		if (strcmp(s.paths.v[i], p) == 0)
			break;
	if (i == s.paths.n) {
		store_free(&s);
		return 0;
	}
	v = json_tree_parse(s.lines.v[i], strlen(s.lines.v[i]), err, sizeof(err));
	store_free(&s);
	if (v == NULL || (aces = json_tree_get(v, "aces")) == NULL ||
	    aces->type != JSON_ARRAY) {
		json_tree_free(v);
		return wa_fail(0, "fake: damaged entry for %s", p);
	}
	pr = json_tree_get(v, "protect");
	d->protect = pr != NULL && pr->type == JSON_TRUE;
	for (e = aces->child; e != NULL; e = e->next) {
		const struct json_value *a = json_tree_get(e, "ace"),
					*sid = json_tree_get(e, "sid");
		const struct json_value *m = json_tree_get(e, "mask"),
					*fl = json_tree_get(e, "flags");

		if (a == NULL || sid == NULL || m == NULL || fl == NULL) {
			json_tree_free(v);
			wa_dacl_free(d);
			return wa_fail(0, "fake: damaged entry for %s", p);
		}
		d->v = xreallocarray(d->v, d->n + 1, sizeof(*d->v));
		memset(&d->v[d->n], 0, sizeof(d->v[d->n]));
		d->v[d->n].deny = strcmp(a->str, "deny") == 0;
		d->v[d->n].sid = xstrdup(sid->str);
		d->v[d->n].mask = (uint32_t)m->num;
		d->v[d->n++].flags = (uint8_t)fl->num;
	}
	json_tree_free(v);
	return 0;
}

int
wa_dacl_set(const char *p, const struct wa_dacl *d)
{
	struct store s;
	struct buf calls = { 0 };
	char *path = fake_path("dacl.jsonl"), *tmp = fake_path("dacl.jsonl.tmp"), *line;
	FILE *f;
	int found = 0, rc = -1;

	buf_addf(&calls, "dacl_set %s", p);
	for (size_t i = 0; i < d->n; i++)
		buf_addf(&calls, " %s:%s:0x%08lx:%s", d->v[i].deny ? "deny" : "allow",
		    d->v[i].sid, (unsigned long)d->v[i].mask, d->v[i].flags ? "OICI" : "-");
	logcall("%s", buf_str(&calls));
	buf_free(&calls);
	if (should_fail("dacl_set", p)) {
		rc = wa_fail(1, "SetNamedSecurityInfoW %s: access denied (fake)", p);
		goto out;
	}
	if (store_read(&s) != 0)
		goto out;
	if ((f = fopen(tmp, "w")) == NULL) {
		store_free(&s);
		rc = wa_fail(0, "fake: %s: %s", tmp, strerror(errno));
		goto out;
	}
	line = dacl_line(p, d);
	for (size_t i = 0; i < s.paths.n; i++) {
		if (strcmp(s.paths.v[i], p) == 0) {
			if (d->n > 0 || d->protect)
				fprintf(f, "%s\n", line);
			found = 1;
		} else
			fprintf(f, "%s\n", s.lines.v[i]);
	}
	if (!found && (d->n > 0 || d->protect))
		fprintf(f, "%s\n", line);
	free(line);
	store_free(&s);
	if (fclose(f) != 0 || rename(tmp, path) == -1) {
		rc = wa_fail(0, "fake: writing dacl.jsonl: %s", strerror(errno));
		goto out;
	}
	rc = 0;
out:
	free(path);
	free(tmp);
	return rc;
}

int
wa_sid_valid(const char *sid)
{
	const char *p = sid;
	int parts = 0;

	if (strncmp(p, "S-1-", 4) != 0)
		return 0;
	for (p += 4;; p++) {
		const char *s = p;

		while (*p >= '0' && *p <= '9')
			p++;
		if (p == s || p - s > 10)
			return 0;
		parts++;
		if (*p == '\0')
			break;
		if (*p != '-')
			return 0;
	}
	return parts >= 1 && parts <= 16;
}

/* Windows derives S-1-15-3-1024-<8 parts of a SHA-256>; the fake, 8 parts of FNV-1a. */
int
wa_capability_sid(const char *name, char **sid)
{
	struct buf b = { 0 };
	uint32_t h = 2166136261u;

	buf_adds(&b, "S-1-15-3-1024");
	for (int part = 0; part < 8; part++) {
		for (const char *p = name; *p; p++) {
			h ^= (unsigned char)*p;
			h *= 16777619u;
		}
		h ^= (uint32_t)part;
		h *= 16777619u;
		buf_addf(&b, "-%lu", (unsigned long)h);
	}
	*sid = buf_steal(&b);
	return 0;
}

/* --- processes -------------------------------------------------------------------------- */

unsigned long
wa_pid(void)
{
	return (unsigned long)getpid();
}

static int
proc_start(unsigned long pid, uint64_t *start)
{
	char path[64], buf[1024], *p;
	FILE *f;
	size_t n;
	int field;

	snprintf(path, sizeof(path), "/proc/%lu/stat", pid);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* After the command name, which may hold anything but ends at the last ')'. */
	if ((p = strrchr(buf, ')')) == NULL)
		return -1;
	for (field = 2; *p && field < 22; p++)
		if (*p == ' ')
			field++;
	*start = strtoull(p, NULL, 10);
	return 0;
}

int
wa_process_alive(unsigned long pid, uint64_t start, uint64_t *startp)
{
	uint64_t s;
	char path[64];
	FILE *f;
	char st[512];
	char *p;

	if (pid == 0 || pid > INT_MAX)
		return 0;
	if (kill((pid_t)pid, 0) == -1 && errno == ESRCH)
		return 0;
	if (proc_start(pid, &s) != 0)
		return 0;
	/* A zombie has ended. */
	snprintf(path, sizeof(path), "/proc/%lu/stat", pid);
	if ((f = fopen(path, "r")) != NULL) {
		size_t n = fread(st, 1, sizeof(st) - 1, f);

		fclose(f);
		st[n] = '\0';
		if ((p = strrchr(st, ')')) != NULL && p[1] == ' ' && p[2] == 'Z')
			return 0;
	}
	if (start != 0 && s != start)
		return 0;
	if (startp != NULL)
		*startp = s;
	return 1;
}

static enum wa_start start_error;
static volatile sig_atomic_t ctrl_sig; /* a SIGINT or SIGQUIT came (wa_console_keep) */

static void
on_ctrl(int sig)
{
	ctrl_sig = sig;
}

void
wa_console_keep(void)
{
	struct sigaction sa;

	logcall("console_keep");
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_ctrl; /* not SIG_IGN: the child gets the default back */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGQUIT, &sa, NULL);
}

enum wa_start
wa_start_error(void)
{
	return start_error;
}

static int
spawn_wait(const struct wa_spawn *sp, int *status, int *watched_ended)
{
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int r, ws;
	char *saved = NULL;

	*watched_ended = 0;
	start_error = WA_START_OTHER;
	if (sp->cwd != NULL) {
		saved = getcwd(NULL, 0);
		if (chdir(sp->cwd) == -1)
			return wa_fail(0, "chdir %s: %s", sp->cwd, strerror(errno));
	}
	posix_spawn_file_actions_init(&fa);
	r = posix_spawnp(&pid, sp->argv[0], &fa, NULL, sp->argv, sp->env ? sp->env : environ);
	posix_spawn_file_actions_destroy(&fa);
	if (saved != NULL) {
		if (chdir(saved) == -1)
			r = r ? r : errno;
		free(saved);
	}
	if (r != 0) {
		/* posix_spawnp's errors as CreateProcess's would be told apart. */
		start_error = r == ENOENT || r == ENOTDIR       ? WA_START_NOTFOUND
		    : r == EACCES || r == ENOEXEC || r == EPERM ? WA_START_NOEXEC
								: WA_START_OTHER;
		return wa_fail(0, "CreateProcess %s: %s", sp->argv[0], strerror(r));
	}
	for (;;) {
		pid_t w = waitpid(pid, &ws, sp->watch_pid ? WNOHANG : 0);

		if (w == pid)
			break;
		if (w == -1 && errno != EINTR)
			return wa_fail(0, "waitpid: %s", strerror(errno));
		/* What the console does on Windows: the command gets the Ctrl-C too. */
		if (ctrl_sig != 0) {
			kill(pid, ctrl_sig);
			ctrl_sig = 0;
		}
		if (sp->watch_pid &&
		    wa_process_alive(sp->watch_pid, sp->watch_start, NULL) == 0) {
			kill(pid, SIGKILL);
			waitpid(pid, &ws, 0);
			*watched_ended = 1;
			break;
		}
		if (sp->watch_pid) {
			struct timespec ts = { 0, 20 * 1000 * 1000 };

			nanosleep(&ts, NULL);
		}
	}
	*status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
	return 0;
}

int
wa_run_contained(const struct wa_spawn *sp, int *status)
{
	size_t roots = 0;
	int ended;

	for (char **r = sp->restrict_sids; r != NULL && *r != NULL; r++)
		roots++;
	logcall("run_contained write_restricted=%d roots=%zu %s", sp->write_restricted, roots,
	    sp->argv[0]);
	if (should_fail("run_contained", NULL))
		return wa_fail(0, "CreateRestrictedToken: not supported (fake)");
	if (spawn_wait(sp, status, &ended) != 0)
		return -1;
	return ended;
}

static int accounts_find(const char *kind, const char *name, char **sid, char **pw);

int
wa_run_as_user(const char *user, const char *password, const struct wa_spawn *sp, int *status,
    enum wa_logon *why)
{
	char *pw = NULL;
	int ended;

	*why = WA_LOGON_OK;
	logcall("run_as_user %s %s", user, sp->argv[0]);
	if (should_fail("seclogon", NULL)) {
		*why = WA_LOGON_SECLOGON_DISABLED;
		return wa_fail(0, "CreateProcessWithLogonW: the service is disabled (fake)");
	}
	if (accounts_find("user", user, NULL, &pw) != 0 || strcmp(pw, password) != 0) {
		free(pw);
		*why = WA_LOGON_FAILED;
		return wa_fail(
		    0, "CreateProcessWithLogonW %s: wrong user name or password", user);
	}
	free(pw);
	if (spawn_wait(sp, status, &ended) != 0)
		return -1;
	return ended;
}

int
wa_run_elevated(char **argv, int *status)
{
	struct wa_spawn sp = { 0 };
	int ended;

	logcall("run_elevated %s", argv[1] ? argv[1] : "");
	if (getenv("SRT_WIN_FAKE_DECLINE") != NULL)
		return 1;
	sp.argv = argv;
	setenv("SRT_WIN_FAKE_ELEVATED", "1", 1);
	if (spawn_wait(&sp, status, &ended) != 0)
		return -1;
	unsetenv("SRT_WIN_FAKE_ELEVATED");
	return 0;
}

int
wa_elevated(void)
{
	return getenv("SRT_WIN_FAKE_ELEVATED") != NULL;
}

/* --- accounts: "user NAME SID PASSWORD", "group NAME SID", "member GROUP USER" ------- */

static int
accounts_read(struct strlist *lines)
{
	char *p = fake_path("accounts"), buf[1024];
	FILE *f = fopen(p, "r");

	free(p);
	memset(lines, 0, sizeof(*lines));
	if (f == NULL)
		return 0;
	while (fgets(buf, sizeof(buf), f) != NULL) {
		buf[strcspn(buf, "\n")] = '\0';
		strlist_push(lines, buf);
	}
	fclose(f);
	return 0;
}

static int
accounts_write(const struct strlist *lines)
{
	char *p = fake_path("accounts"), *tmp = fake_path("accounts.tmp");
	FILE *f = fopen(tmp, "w");
	int rc = 0;

	if (f == NULL)
		rc = wa_fail(0, "fake: accounts: %s", strerror(errno));
	else {
		for (size_t i = 0; i < lines->n; i++)
			fprintf(f, "%s\n", lines->v[i]);
		if (fclose(f) != 0 || rename(tmp, p) == -1)
			rc = wa_fail(0, "fake: accounts: %s", strerror(errno));
	}
	free(p);
	free(tmp);
	return rc;
}

/* 0 found (sid, pw filled when asked), 1 not found. */
static int
accounts_find(const char *kind, const char *name, char **sid, char **pw)
{
	struct strlist l;
	int rc = 1;

	accounts_read(&l);
	for (size_t i = 0; i < l.n && rc == 1; i++) {
		char k[16], n[256], s[256], w[256];
		int f = sscanf(l.v[i], "%15s %255s %255s %255s", k, n, s, w);

		if (f >= 3 && strcmp(k, kind) == 0 && strcmp(n, name) == 0) {
			if (sid)
				*sid = xstrdup(s);
			if (pw)
				*pw = xstrdup(f == 4 ? w : "");
			rc = 0;
		}
	}
	strlist_free(&l);
	return rc;
}

static unsigned
next_rid(void)
{
	struct strlist l;
	unsigned rid = 1000;

	accounts_read(&l);
	for (size_t i = 0; i < l.n; i++)
		if (strncmp(l.v[i], "user ", 5) == 0 || strncmp(l.v[i], "group ", 6) == 0)
			rid++;
	strlist_free(&l);
	return rid + 1;
}

int
wa_account_sid(const char *name, char **sid)
{
	if (accounts_find("user", name, sid, NULL) == 0 ||
	    accounts_find("group", name, sid, NULL) == 0)
		return 0;
	return 1;
}

/* One line more, printf-style. */
static int accounts_addf(const char *fmt, ...) SW_PRINTF(1, 2);

static int
accounts_addf(const char *fmt, ...)
{
	struct strlist l;
	struct buf b = { 0 };
	va_list ap;
	int rc;

	va_start(ap, fmt);
	buf_vaddf(&b, fmt, ap);
	va_end(ap);
	accounts_read(&l);
	strlist_push_owned(&l, buf_steal(&b));
	rc = accounts_write(&l);
	strlist_free(&l);
	return rc;
}

/* Drop the lines whose first two words are (kind, name), and memberships naming name. */
static int
accounts_drop(const char *kind, const char *name)
{
	struct strlist l, keep = { 0 };
	int rc;

	accounts_read(&l);
	for (size_t i = 0; i < l.n; i++) {
		char k[16], a[256], b[256];
		int f = sscanf(l.v[i], "%15s %255s %255s", k, a, b);

		if (f >= 2 && strcmp(k, kind) == 0 && strcmp(a, name) == 0)
			continue;
		if (f == 3 && strcmp(k, "member") == 0 &&
		    (strcmp(a, name) == 0 || strcmp(b, name) == 0))
			continue;
		strlist_push(&keep, l.v[i]);
	}
	rc = accounts_write(&keep);
	strlist_free(&l);
	strlist_free(&keep);
	return rc;
}

int
wa_group_create(const char *name, const char *comment)
{
	(void)comment;
	logcall("group_create %s", name);
	if (should_fail("group_create", NULL))
		return wa_fail(1, "NetLocalGroupAdd: access denied (fake)");
	if (accounts_find("group", name, NULL, NULL) == 0)
		return 0;
	return accounts_addf("group %s S-1-5-21-1000-2000-3000-%u", name, next_rid());
}

int
wa_group_delete(const char *name)
{
	logcall("group_delete %s", name);
	return accounts_drop("group", name);
}

int
wa_user_create(const char *name, const char *password, const char *comment)
{
	(void)comment;
	logcall("user_create %s", name);
	if (should_fail("user_create", NULL))
		return wa_fail(1, "NetUserAdd: access denied (fake)");
	return accounts_addf(
	    "user %s S-1-5-21-1000-2000-3000-%u %s", name, next_rid(), password);
}

int
wa_user_set_password(const char *name, const char *password)
{
	char *sid = NULL;
	int rc;

	logcall("user_set_password %s", name);
	if (accounts_find("user", name, &sid, NULL) != 0)
		return wa_fail(0, "NetUserSetInfo %s: no such user", name);
	accounts_drop("user", name);
	rc = accounts_addf("user %s %s %s", name, sid, password);
	free(sid);
	return rc;
}

int
wa_user_delete(const char *name)
{
	logcall("user_delete %s", name);
	return accounts_drop("user", name);
}

int
wa_group_add(const char *group, const char *user)
{
	logcall("group_add %s %s", group, user);
	if (wa_group_has(group, user) == 1)
		return 0;
	return accounts_addf("member %s %s", group, user);
}

int
wa_group_has(const char *group, const char *user)
{
	struct strlist l;
	char *want = xasprintf("member %s %s", group, user);
	int has;

	accounts_read(&l);
	has = strlist_contains(&l, want);
	strlist_free(&l);
	free(want);
	return has;
}

int
wa_current_sid(char **sid)
{
	*sid = xasprintf("S-1-5-21-1000-2000-3000-%u", (unsigned)getuid() + 500);
	return 0;
}

int
wa_random(void *buf, size_t n)
{
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	ssize_t r;

	if (fd == -1)
		return wa_fail(0, "/dev/urandom: %s", strerror(errno));
	r = read(fd, buf, n);
	close(fd);
	return r == (ssize_t)n ? 0 : wa_fail(0, "/dev/urandom: short read");
}

/* --- the machine record -------------------------------------------------------------- */

int
wa_record_get(const char *name, char **value)
{
	char *p = xasprintf("%s/records/%s", fake_dir(), name), *text;
	size_t len;
	FILE *f = fopen(p, "r");

	free(p);
	if (f == NULL)
		return errno == ENOENT ? 1 : wa_fail(0, "record %s: %s", name, strerror(errno));
	if (read_all(f, 1u << 20, &text, &len) != 0) {
		fclose(f);
		return wa_fail(0, "record %s unreadable", name);
	}
	fclose(f);
	*value = text;
	return 0;
}

int
wa_record_set(const char *name, const char *value)
{
	char *d = fake_path("records"), *p = xasprintf("%s/%s", d, name);
	FILE *f;
	int rc = 0;

	logcall("record_set %s", name);
	mkdir(d, 0700);
	if ((f = fopen(p, "w")) == NULL || fputs(value, f) == EOF)
		rc = wa_fail(0, "record %s: %s", name, strerror(errno));
	if (f != NULL && fclose(f) != 0)
		rc = wa_fail(0, "record %s: %s", name, strerror(errno));
	free(d);
	free(p);
	return rc;
}

int
wa_record_delete(const char *name)
{
	char *p = xasprintf("%s/records/%s", fake_dir(), name);

	logcall("record_delete %s", name);
	unlink(p);
	free(p);
	return 0;
}

/* --- WFP ------------------------------------------------------------------------------- */

int
wa_wfp_install(const char *sublayer, const struct wa_filter *f, size_t n)
{
	char *p = fake_path("wfp");
	FILE *out;

	logcall("wfp_install %s %zu", sublayer, n);
	if (should_fail("wfp_install", NULL)) {
		free(p);
		return wa_fail(1, "FwpmFilterAdd0: access denied (fake)");
	}
	if ((out = fopen(p, "a")) == NULL) {
		free(p);
		return wa_fail(0, "fake: wfp: %s", strerror(errno));
	}
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%s %s|v%d|%s|%s|loopback=%d|ports=%d-%d|weight=%u\n", sublayer,
		    f[i].name, f[i].v6 ? 6 : 4, f[i].permit ? "permit" : "block", f[i].user_sid,
		    f[i].loopback, f[i].port_lo, f[i].port_hi, (unsigned)f[i].weight);
	fclose(out);
	free(p);
	return 0;
}

int
wa_wfp_count(const char *sublayer, int *n)
{
	char *p = fake_path("wfp"), buf[1024];
	FILE *f = fopen(p, "r");
	size_t sl = strlen(sublayer);

	free(p);
	*n = 0;
	if (!wa_elevated())
		return wa_fail(1, "FwpmFilterCreateEnumHandle0: access denied (fake)");
	if (f == NULL)
		return 0;
	while (fgets(buf, sizeof(buf), f) != NULL)
		if (strncmp(buf, sublayer, sl) == 0 && buf[sl] == ' ')
			(*n)++;
	fclose(f);
	return 0;
}

int
wa_wfp_remove(const char *sublayer)
{
	char *p = fake_path("wfp"), *tmp = fake_path("wfp.tmp"), buf[1024];
	FILE *f = fopen(p, "r"), *out;
	size_t sl = strlen(sublayer);

	logcall("wfp_remove %s", sublayer);
	if (f != NULL && (out = fopen(tmp, "w")) != NULL) {
		while (fgets(buf, sizeof(buf), f) != NULL)
			if (!(strncmp(buf, sublayer, sl) == 0 && buf[sl] == ' '))
				fputs(buf, out);
		fclose(out);
		rename(tmp, p);
	}
	if (f != NULL)
		fclose(f);
	free(p);
	free(tmp);
	return 0;
}

int
wa_connect_probe(const char *host, int port, int *outcome)
{
	struct sockaddr_in sa = { 0 };
	int fd;

	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)port);
	if (inet_pton(AF_INET, host, &sa.sin_addr) != 1)
		return wa_fail(0, "probe: %s is not an IPv4 address", host);
	if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		return wa_fail(0, "socket: %s", strerror(errno));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
		*outcome = 0;
	else
		*outcome = errno == EACCES || errno == EPERM ? 1 : 2;
	close(fd);
	return 0;
}

/* --- certificates ------------------------------------------------------------------------ */

int
wa_trust_cert(const uint8_t *der, size_t len, char **thumb)
{
	uint64_t h = 14695981039346656037ull;

	for (size_t i = 0; i < len; i++) {
		h ^= der[i];
		h *= 1099511628211ull;
	}
	/* Not a SHA-1: the fake only needs a stable name for the certificate. */
	*thumb = xasprintf("%016llx", (unsigned long long)h);
	logcall("trust_cert %s", *thumb);
	return 0;
}
