/*
 * Masked credentials (settings "credentials", mode "mask"; lib/core/cred.h): the command gets
 * sentinels, srt-httpd the real values.
 *
 * Variables: the command's environment carries the sentinel text (env.c asks
 * cred_env_value); the proxies are started without the masked variables at all. Files:
 * the masked copy is a memfd that bwrap copies into its own tmpfs and binds read-only
 * over the real file (--ro-bind-data). The store goes to srt-httpd through a pipe
 * (--cred-fd), written once it runs; nothing of it is ever written to a file, an
 * argument vector or a log line.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cred_mask.h"
#include "fdpass.h"
#include "launch.h"
#include "path.h"

#define CRED_FILE_MAX (1u << 20) /* a masked file, bytes */

extern char **environ;

/* The hosts a credential may go to: its injectHosts, else network.allowedDomains. */
static const char **
cred_hosts(const struct launch *l, const struct settings_cred_mask *m, size_t *n)
{
	const char **v;
	size_t i;

	if (m->inject_set) {
		*n = m->inject.n;
		v = xcalloc(*n + 1, sizeof(*v));
		for (i = 0; i < *n; i++)
			v[i] = m->inject.v[i];
		return v;
	}
	*n = l->set.net.nallowed;
	v = xcalloc(*n + 1, sizeof(*v));
	for (i = 0; i < *n; i++)
		v[i] = l->set.net.allowed[i].spelled;
	return v;
}

/* One entry masked: 0 (done, or left alone with a warning), -1 to stop the run. */
static int
cred_one(struct launch *l, const struct settings_cred_mask *m, const char *key,
    const char *real, size_t len, struct buf *fake, bool *masked, bool *unset)
{
	struct cred_mask_entry e = { .key = key,
		.file = m->file,
		.extract = m->extract,
		.jwt = m->jwt,
		.claims = (const char *const *)m->claims.v,
		.nclaims = m->claims.n,
		.dups = m->dups,
		.fields = (const char *const *)m->body.v,
		.nfields = m->body.n };
	const char **hosts = cred_hosts(l, m, &e.ninject);
	const char *why = NULL,
		   *what = m->file ? "credentials.files entry" : "credentials.envVars entry";
	enum cred_mask_rc rc;

	e.inject = hosts;
	*masked = *unset = false;
	/* As the reference: masked all the same, the sentinel never replaced. */
	if (e.ninject == 0)
		log_warnx(
		    "%s \"%s\": no host may receive it (no injectHosts, and "
		    "network.allowedDomains is empty): the command sees only its masked value",
		    what, m->id);
	rc = cred_mask_value(&l->cred.store, &e, real, len, fake, &why);
	free(hosts);
	switch (rc) {
	case CRED_MASK_DONE:
		*masked = true;
		return 0;
	case CRED_MASK_NOT_JWT:
		log_warnx("WARNING: %s \"%s\" has decode \"jwt\", but %s: it is left "
			  "UNPROTECTED (visible as it is inside the sandbox)",
		    what, m->id, why);
		return 0;
	case CRED_MASK_NOMATCH:
		if (m->no_match == SNM_ERROR) {
			log_warnx("%s \"%s\": %s (onExtractNoMatch: \"error\"); fix the "
				  "pattern, or change onExtractNoMatch",
			    what, m->id, why);
			return -1;
		}
		if (m->no_match == SNM_DENY) {
			log_debug("%s \"%s\": %s: %s", what, m->id, why,
			    m->file ? "the file is hidden instead"
				    : "the variable is removed instead");
			*unset = true;
			return 0;
		}
		log_warnx("WARNING: %s \"%s\": %s, so it is left UNPROTECTED (visible as it "
			  "is inside the sandbox); fix the pattern, or set onExtractNoMatch to "
			  "\"deny\" or \"error\"",
		    what, m->id, why);
		return 0;
	case CRED_MASK_FAIL:
		break;
	}
	log_warnx("%s \"%s\": %s", what, m->id, why != NULL ? why : "cannot mask it");
	return -1;
}

static int
cred_env(struct launch *l, const struct settings_cred_mask *m)
{
	const char *real = getenv(m->id);
	struct buf fake = { 0 };
	bool masked, unset;
	char *key;
	int rc;

	/* Not set on the host: nothing to protect. */
	if (real == NULL)
		return 0;
	strlist_push(&l->cred.hidden, m->id);
	key = xasprintf("env:%s", m->id);
	rc = cred_one(l, m, key, real, strlen(real), &fake, &masked, &unset);
	free(key);
	if (rc == 0 && masked)
		strlist_pushf(&l->cred.env, "%s=%s", m->id, buf_str(&fake));
	else if (rc == 0 && unset)
		strlist_push(&l->cred.unset, m->id);
	else if (rc == 0)
		/* Left unprotected: the command gets it as it is, the proxies need not. */
		strlist_pushf(&l->cred.env, "%s=%s", m->id, real);
	buf_free(&fake);
	return rc;
}

/* The masked copy of one file (real: resolved, a regular file). */
static int
cred_file_at(struct launch *l, const struct settings_cred_mask *m, const char *real)
{
	char *data = NULL, *key;
	struct buf fake = { 0 };
	size_t len = 0;
	bool masked, unset;
	int rc = 0, fd;

	if (read_file(real, CRED_FILE_MAX, &data, &len) == -1) {
		log_warn("credentials.files entry \"%s\": %s", m->id, real);
		rc = -1;
		goto out;
	}
	key = xasprintf("file:%s", real);
	rc = cred_one(l, m, key, data, len, &fake, &masked, &unset);
	free(key);
	if (rc == -1)
		goto out;
	if (unset) {
		/* onExtractNoMatch "deny": an empty file instead of the real one. */
		buf_reset(&fake);
		masked = true;
	}
	if (!masked)
		goto out;
	if (l->cred.nfiles == CRED_FILES_MAX) {
		log_warnx("credentials.files: more than %d masked files", CRED_FILES_MAX);
		rc = -1;
		goto out;
	}
	if ((fd = memfd_sealed("srt-credmask", fake.p + fake.off, fake.len)) == -1) {
		log_warn("memfd");
		rc = -1;
		goto out;
	}
	l->cred.file_fd = xreallocarray(
	    l->cred.file_fd, l->cred.nfiles + 1, sizeof(*l->cred.file_fd));
	l->cred.file_fd[l->cred.nfiles++] = fd;
	strlist_push(&l->cred.file_path, real);
out:
	if (data != NULL)
		explicit_bzero(data, len);
	free(data);
	buf_free(&fake);
	return rc;
}

/* path resolved when it is a regular file; else NULL. */
static char *
cred_regular(const char *path)
{
	struct stat st;
	char *real;

	if (path == NULL || (real = path_resolve(path)) == NULL)
		return NULL;
	if (stat(real, &st) == -1 || !S_ISREG(st.st_mode)) {
		free(real);
		return NULL;
	}
	return real;
}

/*
 * A file entry: the file a reader of its spelling opens (the kernel follows a link
 * before a ".." after it), and the one its text names with the ".." folded away when that
 * is another file, as the plan denies both (plan_linux.c, kernel_spelling).
 */
static int
cred_file(struct launch *l, const struct settings_cred_mask *m)
{
	char *raw, *folded, *real[2];
	int rc = 0;

	if (*m->id == '/' || *m->id == '~')
		raw = path_absolute(m->id, l->home, l->cwd);
	else
		raw = l->cwd != NULL ? path_join(l->cwd, m->id) : NULL;
	folded = path_expand(m->id, l->home, l->cwd);
	real[0] = cred_regular(raw);
	real[1] = cred_regular(folded);
	free(raw);
	free(folded);
	if (real[0] != NULL && real[1] != NULL && strcmp(real[0], real[1]) == 0) {
		free(real[1]);
		real[1] = NULL;
	}
	if (real[0] == NULL && real[1] == NULL)
		log_debug(
		    "credentials.files entry \"%s\": no such file: nothing to mask", m->id);
	for (int k = 0; k < 2 && rc == 0; k++)
		if (real[k] != NULL)
			rc = cred_file_at(l, m, real[k]);
	free(real[0]);
	free(real[1]);
	return rc;
}

/* Pair the masked AWS variables: the explicit awsPairs, and the AWS_* trio unless a pair
 * names one of them. A pair needs both of its first two masked whole. */
static void
cred_aws(struct launch *l)
{
	struct settings_aws_pair trio = { "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
		"AWS_SESSION_TOKEN" };
	const struct settings_cred *sc = &l->set.cred;
	size_t i, k, n = sc->naws;
	bool named = false;
	long idx[3];

	for (i = 0; i < sc->naws; i++)
		for (k = 0; k < 3; k++) {
			const char *v = k == 0 ? sc->aws[i].key_id
			    : k == 1           ? sc->aws[i].secret
					       : sc->aws[i].token;

			named |= v != NULL && strncmp(v, "AWS_", 4) == 0 &&
			    (strcmp(v, trio.key_id) == 0 || strcmp(v, trio.secret) == 0 ||
				strcmp(v, trio.token) == 0);
		}
	for (i = 0; i <= n; i++) {
		const struct settings_aws_pair *p = i < n ? &sc->aws[i] : &trio;

		if (i == n && named)
			break;
		for (k = 0; k < 3; k++) {
			const char *v = k == 0 ? p->key_id : k == 1 ? p->secret : p->token;
			char *name = v != NULL ? xasprintf("env:%s", v) : NULL;
			size_t s;

			idx[k] = -1;
			for (s = 0; name != NULL && s < l->cred.store.n; s++)
				if (strcmp(l->cred.store.v[s].name, name) == 0)
					idx[k] = (long)s;
			free(name);
		}
		if (idx[0] < 0 || idx[1] < 0) {
			if (idx[1] >= 0)
				log_warnx(
				    "WARNING: \"%s\" is masked but \"%s\" is not: SigV4 "
				    "requests signed with the stand-in secret cannot be re-signed "
				    "and will fail; mask both",
				    p->secret, p->key_id);
			continue;
		}
		l->cred.store.aws = xreallocarray(
		    l->cred.store.aws, l->cred.store.naws + 1, sizeof(*l->cred.store.aws));
		l->cred.store.aws[l->cred.store.naws++] = (struct cred_aws){ (size_t)idx[0],
			(size_t)idx[1], idx[2] };
	}
}

int
cred_prepare(struct launch *l)
{
	const struct settings_cred *sc = &l->set.cred;
	size_t i;

	if (sc->nmask == 0)
		return 0;
	l->cred.store.plaintext = sc->plaintext_inject;
	l->cred.store.streaming = sc->sigv4[0] ? CRED_SIGV4_PASSTHROUGH : CRED_SIGV4_DENY;
	l->cred.store.presigned = sc->sigv4[1] ? CRED_SIGV4_PASSTHROUGH : CRED_SIGV4_DENY;
	l->cred.store.sigv4a = sc->sigv4[2] ? CRED_SIGV4_PASSTHROUGH : CRED_SIGV4_DENY;
	for (i = 0; i < sc->nmask; i++)
		if ((sc->mask[i].file ? cred_file(l, &sc->mask[i])
				      : cred_env(l, &sc->mask[i])) == -1)
			return -1;
	cred_aws(l);
	log_debug("credentials: %zu value(s) masked, %zu file(s) bound, %zu AWS pair(s)",
	    l->cred.store.n, l->cred.nfiles, l->cred.store.naws);
	return 0;
}

/*
 * Where the filesystem plan hides path: the index in args of the last mount at path or
 * above it, when that is a tmpfs (a read-denied directory) or /dev/null bound over it (a
 * read-denied file); -1 when what is there is shown. Mounts are replayed in order: the
 * last one that covers a path is what the command sees there.
 */
static long
cred_plan_hides(const struct strlist *args, size_t first, size_t end, const char *path)
{
	long hidden = -1;
	size_t i;

	for (i = first; i < end && i < args->n; i++) {
		const char *o = args->v[i];

		if ((strcmp(o, "--bind") == 0 || strcmp(o, "--ro-bind") == 0 ||
			strcmp(o, "--ro-bind-try") == 0) &&
		    i + 2 < end) {
			if (path_is_under(path, args->v[i + 2]))
				hidden = strcmp(args->v[i + 1], "/dev/null") == 0 ? (long)i
										  : -1;
			i += 2;
		} else if (strcmp(o, "--tmpfs") == 0 && i + 1 < end) {
			if (path_is_under(path, args->v[i + 1]))
				hidden = (long)i;
			i++;
		} else if (strcmp(o, "--remount-ro") == 0)
			i++;
	}
	return hidden;
}

/* Is path hidden by a mask srt-seccomp mounts (wguard 'F': /dev/null over a read-denied
 * file, a tmpfs over a directory)? */
static bool
cred_guard_masks(const struct wguard *g, const char *path)
{
	size_t i;

	for (i = 0; i < g->watch.n; i++)
		if (g->watch.v[i].place && path_is_under(path, g->watch.v[i].mount))
			return true;
	return false;
}

/*
 * The options that bind the masked copies (--ro-bind-data, from the descriptors
 * bwrap_start handed over), put into the plan once it is finished. A copy stands in for a
 * file the command could read, over whatever the filesystem part put there. A file the
 * plan hides (under a read-denied directory, or denied itself) stays hidden, as if it
 * were not masked; its descriptor must still be consumed by bwrap, or the command would
 * inherit it and could read the copy.
 * - Under a read-denied directory the copy is bound just before the tmpfs that hides it.
 * - A read-denied file is hidden by /dev/null bound over it (by bwrap, or by srt-seccomp
 *   after every bwrap mount: wguard 'F'), and nothing can be mounted over a
 *   --ro-bind-data mount (its source is unlinked: the kernel refuses with ENOENT),
 *   so the copy goes to CRED_SINK in bwrap's own /dev, which an empty read-only tmpfs
 *   then covers.
 * (The reference binds the copy regardless, so that a file appears where the user
 * denied reading.)
 */
#define CRED_SINK "/dev/.srt-hidden-masked"

void
cred_files_settle(struct launch *l)
{
	struct strlist *a = &l->sandbox.plan.args, out = { 0 }, sink = { 0 };
	long *at;
	size_t i, k, added = 0,
		     n = l->cred.nfiles < CRED_FILES_MAX ? l->cred.nfiles : CRED_FILES_MAX;

	if (n == 0)
		return;
	at = xcalloc(n, sizeof(*at));
	for (k = 0; k < n; k++) {
		at[k] = cred_plan_hides(a, l->sandbox.plan.fs_first, l->sandbox.plan.fs_end,
		    l->cred.file_path.v[k]);
		/* Or hidden by the /dev/null mask srt-seccomp mounts after bwrap's mounts. */
		if (at[k] == -1 &&
		    !cred_guard_masks(&l->sandbox.plan.guard, l->cred.file_path.v[k])) {
			at[k] = (long)l->sandbox.plan.fs_end;
			continue;
		}
		log_debug("credentials.files: %s is read-denied: it stays hidden, not masked",
		    l->cred.file_path.v[k]);
		if (at[k] == -1 || strcmp(a->v[at[k]], "--tmpfs") != 0) {
			strlist_push(&sink, "--ro-bind-data");
			strlist_pushf(&sink, "%d", l->cred.fd_base + (int)k);
			strlist_pushf(&sink, "%s/%zu", CRED_SINK, k);
			at[k] = -1;
		}
	}
	for (i = 0; i <= a->n; i++) {
		for (k = 0; k < n; k++) {
			if (at[k] != (long)i)
				continue;
			strlist_push(&out, "--ro-bind-data");
			strlist_pushf(&out, "%d", l->cred.fd_base + (int)k);
			strlist_push(&out, l->cred.file_path.v[k]);
			added += 3; /* at[k] <= fs_end: in the filesystem part */
		}
		if (i < a->n)
			strlist_push(&out, a->v[i]);
	}
	/* After the tail's --dev /dev: the sink is in bwrap's tmpfs, never the host's. */
	if (sink.n > 0) {
		for (i = 0; i < sink.n; i++)
			strlist_push(&out, sink.v[i]);
		strlist_push(&out, "--tmpfs");
		strlist_push(&out, CRED_SINK);
		strlist_push(&out, "--remount-ro");
		strlist_push(&out, CRED_SINK);
	}
	strlist_free(a);
	strlist_free(&sink);
	*a = out;
	l->sandbox.plan.fs_end += added; /* those went in the filesystem part */
	free(at);
}

/* The proxies' environment: the launcher's, without the masked variables. */
char **
cred_proxy_environ(const struct launch *l)
{
	struct strlist e = { 0 };
	char **p;

	if (l->cred.hidden.n == 0)
		return NULL;
	for (p = environ; *p != NULL; p++)
		if (!env_cred_owned(l, *p))
			strlist_push(&e, *p);
	return e.v != NULL ? e.v : xcalloc(1, sizeof(char *));
}

/* The store for srt-httpd, written into the pipe it reads at start; the pipe's reader
 * holds it afterwards, the writer's copy is wiped. -1 when it cannot be written whole. */
int
cred_send(struct launch *l, int fd)
{
	struct buf b = { 0 };
	size_t off = 0;
	ssize_t w;
	int rc = 0;

	cred_store_encode(&l->cred.store, &b);
	while (off < b.len) {
		w = write(fd, b.p + b.off + off, b.len - off);
		if (w == -1 && errno == EINTR)
			continue;
		if (w <= 0) {
			log_warn("credentials: write to srt-httpd");
			rc = -1;
			break;
		}
		off += (size_t)w;
	}
	explicit_bzero(b.p, b.cap);
	buf_free(&b);
	return rc;
}

void
cred_free(struct launch *l)
{
	size_t i;

	cred_store_free(&l->cred.store);
	for (i = 0; i < l->cred.nfiles; i++)
		close(l->cred.file_fd[i]);
	free(l->cred.file_fd);
	strlist_free(&l->cred.file_path);
	/* The entries with sentinels only; the unprotected ones hold real values. */
	for (i = 0; i < l->cred.env.n; i++)
		explicit_bzero(l->cred.env.v[i], strlen(l->cred.env.v[i]));
	strlist_free(&l->cred.env);
	strlist_free(&l->cred.unset);
	strlist_free(&l->cred.hidden);
}
