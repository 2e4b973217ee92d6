/*
 * network.tlsTerminate on the launcher's side (issue #14): the CA and the trust bundle.
 *
 * The CA is the user's pair (caCertPath, caKeyPath), read and checked here, or one made
 * for this run. Either way its key exists only in this process and in srt-httpd, which
 * gets certificate and key through a sealed memfd (--ca-fd): no file holds the run's key,
 * and nothing inside the sandbox can reach it.
 *
 * The sandbox trusts the bundle: the CA's certificate, the host's roots (the launcher's
 * SSL_CERT_FILE, else OpenSSL's default file), the launcher's NODE_EXTRA_CA_CERTS, and
 * the CERTIFICATE blocks of extraCaCertPaths (nothing else from those files; a file that
 * is missing or unreadable is skipped). It is written into the run's TMPDIR and bound
 * read-only over itself (lib/sandbox/plan_linux_sandbox.c), so the command can read it but
 * neither change nor remove it, and it goes away with the TMPDIR. The variables of ca_env
 * name it. Java reads no PEM file: the same certificates go into a PKCS#12 trust store
 * beside it (tls_mitm_trust_store), bound the same way, which JAVA_TOOL_OPTIONS names
 * (ca_java_options, env.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "launch.h"
#include "tls_mitm.h"

#define CA_FILE_MAX (8u << 20) /* a PEM file larger than this is not read */

/* The variables that name the bundle (the reference's list). */
static const char *const ca_vars[] = { "SSL_CERT_FILE", "CURL_CA_BUNDLE", "REQUESTS_CA_BUNDLE",
	"NODE_EXTRA_CA_CERTS", "GIT_SSL_CAINFO", "PIP_CERT", "AWS_CA_BUNDLE",
	"CARGO_HTTP_CAINFO", "DENO_CERT", "CLOUDSDK_CORE_CUSTOM_CA_CERTS_FILE",
	"NIX_SSL_CERT_FILE", NULL };

/* A path of the settings: relative ones are relative to the launching directory. */
static char *
ca_path(const struct launch *l, const char *p)
{
	return p[0] == '/' ? xstrdup(p) : xasprintf("%s/%s", l->cwd, p);
}

/* The file the settings came from, as errors name it. */
static const char *
ca_source(const struct launch *l)
{
	if (l->config_path != NULL)
		return l->config_path;
	return l->settings_arg != NULL ? l->settings_arg
	    : l->policy_arg != NULL    ? l->policy_arg
				       : "the settings";
}

int
ca_setup(struct launch *l)
{
	const struct settings_tls *t = &l->set.net.tls;
	struct tls_mitm *m = NULL;
	char err[TLS_ERR_MAX + 128], *cert = NULL, *key = NULL, *cp, *kp;
	const char *q;
	size_t clen = 0, klen = 0;

	if (!t->present)
		return 0;
	if (t->ca_cert_path != NULL) {
		cp = ca_path(l, t->ca_cert_path);
		kp = ca_path(l, t->ca_key_path);
		if ((cert = util_read_secret_file(cp, CA_FILE_MAX, &clen)) == NULL)
			log_warnx("%s: network.tlsTerminate.caCertPath %s: %s", ca_source(l),
			    cp, strerror(errno));
		else if ((key = util_read_secret_file(kp, CA_FILE_MAX, &klen)) == NULL)
			log_warnx("%s: network.tlsTerminate.caKeyPath %s: %s", ca_source(l), kp,
			    strerror(errno));
		/* A pair that does not make a CA is the user's file too: both are named. */
		else if ((m = tls_mitm_new(cert, clen, key, klen, err, sizeof(err))) == NULL)
			log_warnx("%s: network.tlsTerminate: caCertPath %s, caKeyPath %s: %s",
			    ca_source(l), cp, kp, err);
		else
			tls_mitm_free(m);
		free(cp);
		free(kp);
		if (cert == NULL || key == NULL || m == NULL)
			goto fail;
	} else if (tls_mitm_ca_generate(&cert, &key, err, sizeof(err)) == -1) {
		log_warnx("tlsTerminate: cannot make a CA for the run: %s", err);
		goto fail;
	} else {
		clen = strlen(cert);
		klen = strlen(key);
	}
	/* Checked here, so that a bad pair stops the run before the command starts. */
	if ((m = tls_mitm_new(cert, clen, key, klen, err, sizeof(err))) == NULL) {
		log_warnx("tlsTerminate: %s", err);
		goto fail;
	}
	l->ca.pem = xstrdup(tls_mitm_ca_pem(m));
	tls_mitm_free(m);
	/* What srt-httpd reads from --ca-fd: the certificate, then the key. */
	l->ca.secret = xasprintf("%s%s", l->ca.pem, key);
	l->ca.bundle = xasprintf("%s/%s", l->tmpdir, PLAN_CA_BUNDLE_NAME);
	l->ca.store = xasprintf("%s/%s", l->tmpdir, PLAN_CA_STORE_NAME);
	/* The JVM splits JAVA_TOOL_OPTIONS at white space, except inside quotes (JDK 9 and
	 * later): a run directory under a TMPDIR with spaces is quoted. */
	if (strpbrk(l->ca.store, " \t\n\r\v\f\"'") == NULL)
		q = "";
	else if (strchr(l->ca.store, '"') == NULL)
		q = "\"";
	else if (strchr(l->ca.store, '\'') == NULL)
		q = "'";
	else {
		log_warnx("tlsTerminate: %s: a path with both kinds of quote cannot be named "
			  "in JAVA_TOOL_OPTIONS",
		    l->ca.store);
		goto fail;
	}
	l->ca.java = xasprintf(" -Djavax.net.ssl.trustStore=%s%s%s "
			       "-Djavax.net.ssl.trustStoreType=PKCS12",
	    q, l->ca.store, q);
	log_debug("tlsTerminate: %s CA; the sandbox trusts %s",
	    t->ca_cert_path != NULL ? "the user's" : "an ephemeral", l->ca.bundle);
	free(cert);
	tls_mitm_pem_free(key);
	return 0;
fail:
	free(cert);
	tls_mitm_pem_free(key);
	return -1;
}

/* Append the CERTIFICATE blocks of path to b; a missing file is skipped (debug). */
static void
ca_add_file(struct buf *b, const char *what, const char *path)
{
	size_t len, n;
	char *text;

	if ((text = util_read_secret_file(path, CA_FILE_MAX, &len)) == NULL) {
		log_debug("trust bundle: %s %s: %s: skipped", what, path, strerror(errno));
		return;
	}
	n = tls_mitm_pem_certs(text, len, b);
	log_debug("trust bundle: %zu certificate(s) from %s %s", n, what, path);
	free(text);
}

/* A new read-only file holding p; 0, or -1 (said). */
static int
ca_write_file(const char *path, const void *p, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0444);

	if (fd == -1) {
		log_warn("%s", path);
		return -1;
	}
	if (write(fd, p, len) != (ssize_t)len) {
		log_warn("%s", path);
		close(fd);
		return -1;
	}
	if (close(fd) == -1) {
		log_warn("%s", path);
		return -1;
	}
	return 0;
}

int
ca_write_bundle(const struct launch *l)
{
	const struct settings_tls *t = &l->set.net.tls;
	struct buf b = { 0 }, st = { 0 };
	const char *roots = getenv("SSL_CERT_FILE"), *node = getenv("NODE_EXTRA_CA_CERTS");
	char *p, err[TLS_ERR_MAX + 64];
	int rc = -1;

	if (l->ca.bundle == NULL)
		return 0;
	buf_adds(&b, l->ca.pem);
	if (roots == NULL || roots[0] == '\0')
		roots = "/etc/ssl/certs/ca-certificates.crt";
	ca_add_file(&b, "host roots", roots);
	if (node != NULL && node[0] != '\0')
		ca_add_file(&b, "NODE_EXTRA_CA_CERTS", node);
	for (size_t i = 0; i < t->extra_ca_paths.n; i++) {
		p = ca_path(l, t->extra_ca_paths.v[i]);
		ca_add_file(&b, "extraCaCertPaths", p);
		free(p);
	}
	if (ca_write_file(l->ca.bundle, b.p + b.off, b.len) == -1)
		goto out;
	if (tls_mitm_trust_store(b.p + b.off, b.len, &st, err, sizeof(err)) == -1) {
		log_warnx("Java's trust store: %s", err);
		goto out;
	}
	if (ca_write_file(l->ca.store, st.p + st.off, st.len) == -1)
		goto out;
	rc = 0;
out:
	buf_free(&b);
	buf_free(&st);
	return rc;
}

void
ca_env(const struct launch *l, struct strlist *e)
{
	if (l->ca.bundle == NULL)
		return;
	for (size_t i = 0; ca_vars[i] != NULL; i++)
		strlist_pushf(e, "%s=%s", ca_vars[i], l->ca.bundle);
}

const char *
ca_java_options(const struct launch *l)
{
	return l->ca.java != NULL ? l->ca.java : "";
}

int
ca_env_owned(const struct launch *l, const char *kv)
{
	size_t n = strcspn(kv, "=");

	if (l->ca.bundle == NULL)
		return 0;
	for (size_t i = 0; ca_vars[i] != NULL; i++)
		if (strlen(ca_vars[i]) == n && strncmp(kv, ca_vars[i], n) == 0)
			return 1;
	return 0;
}

void
ca_free(struct launch *l)
{
	free(l->ca.pem);
	tls_mitm_pem_free(l->ca.secret);
	free(l->ca.bundle);
	free(l->ca.store);
	free(l->ca.java);
	l->ca.pem = l->ca.secret = l->ca.bundle = l->ca.store = l->ca.java = NULL;
}
