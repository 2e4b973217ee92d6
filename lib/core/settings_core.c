/*
 * The settings structure's own life (defaults, lengths, freeing), apart from the JSON
 * reader in settings.c: what the compiled policy's reader needs (policy.c), so that it
 * builds where cJSON does not, for the proxies on Windows.
 */
#include <stdlib.h>
#include <string.h>

#include "domain.h"
#include "settings.h"
#include "util.h"

void
settings_init_default(struct settings *s)
{
	memset(s, 0, sizeof(*s));
	for (size_t o = 0; o < 3; o++) {
		const struct settings_object *obj = settings_objects[o];

		for (size_t i = 0; i < obj->nkeys; i++)
			if (obj->keys[i].kind == SETTINGS_INT)
				settings_set_int(s, &obj->keys[i], obj->keys[i].dflt);
	}
	/* The one boolean true by default: the read denies held by Landlock (readlock.c). */
	s->fs.deny_read_hold = true;
}

const char *
settings_list_path(enum settings_list l)
{
	static const char *const paths[SL_COUNT] = {
		[SL_ALLOWED_DOMAINS] = "network.allowedDomains",
		[SL_DENIED_DOMAINS] = "network.deniedDomains",
		[SL_DENIED_REASONS] = "network.deniedDomainReasons",
		[SL_DENIED_ADDRS] = "network.deniedResolvedAddresses",
		[SL_ALLOW_UNIX_SOCKETS] = "network.allowUnixSockets",
		[SL_ALLOW_MACH_LOOKUP] = "network.allowMachLookup",
		[SL_DENY_READ] = "filesystem.denyRead",
		[SL_ALLOW_READ] = "filesystem.allowRead",
		[SL_ALLOW_WRITE] = "filesystem.allowWrite",
		[SL_DENY_WRITE] = "filesystem.denyWrite",
		[SL_IGNORE] = "ignoreViolations",
		[SL_GIT_SAFE_DIRS] = "git.safeDirectories",
		[SL_CRED_FILES] = "credentials.files",
		[SL_CRED_ENV] = "credentials.envVars",
	};

	return (unsigned)l < SL_COUNT ? paths[l] : NULL;
}

size_t
settings_list_len(const struct settings *s, enum settings_list l)
{
	switch (l) {
	case SL_ALLOWED_DOMAINS:
		return s->net.nallowed;
	case SL_DENIED_DOMAINS:
		return s->net.ndenied;
	case SL_DENIED_REASONS:
		return s->net.nreasons;
	case SL_DENIED_ADDRS:
		return s->net.ndenied_addrs;
	case SL_ALLOW_UNIX_SOCKETS:
		return s->net.allow_unix_sockets.n;
	case SL_ALLOW_MACH_LOOKUP:
		return s->net.allow_mach_lookup.n;
	case SL_DENY_READ:
		return s->fs.deny_read.n;
	case SL_ALLOW_READ:
		return s->fs.allow_read.n;
	case SL_ALLOW_WRITE:
		return s->fs.allow_write.n;
	case SL_DENY_WRITE:
		return s->fs.deny_write.n;
	case SL_IGNORE:
		return s->nignore;
	case SL_GIT_SAFE_DIRS:
		return s->git_safe_dirs.n;
	case SL_CRED_FILES:
		return s->cred.deny_files.n;
	case SL_CRED_ENV:
		return s->cred.deny_env.n;
	case SL_COUNT:
		break;
	}
	return 0;
}

void
settings_cred_mask_clear(struct settings_cred_mask *m)
{
	free(m->id);
	free(m->extract);
	strlist_free(&m->claims);
	strlist_free(&m->inject);
	strlist_free(&m->body);
	memset(m, 0, sizeof(*m));
}

static void
path_list_free(struct path_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].path);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

static void
settings_cred_free(struct settings_cred *cr)
{
	size_t i;

	path_list_free(&cr->deny_files);
	strlist_free(&cr->deny_env);
	for (i = 0; i < cr->nmask; i++)
		settings_cred_mask_clear(&cr->mask[i]);
	free(cr->mask);
	for (i = 0; i < cr->naws; i++) {
		free(cr->aws[i].key_id);
		free(cr->aws[i].secret);
		free(cr->aws[i].token);
	}
	free(cr->aws);
	memset(cr, 0, sizeof(*cr));
}


void
settings_free(struct settings *s)
{
	size_t i;

	for (i = 0; i < s->net.nallowed; i++)
		dom_rule_clear(&s->net.allowed[i]);
	free(s->net.allowed);
	for (i = 0; i < s->net.ndenied; i++) {
		/* The reason is ours (settings_link_reasons); clear it before the rule. */
		free(s->net.denied[i].reason);
		s->net.denied[i].reason = NULL;
		dom_rule_clear(&s->net.denied[i]);
	}
	free(s->net.denied);
	for (i = 0; i < s->net.nreasons; i++) {
		free(s->net.reasons[i].entry);
		free(s->net.reasons[i].reason);
	}
	free(s->net.reasons);
	free(s->net.denied_addrs);
	strlist_free(&s->net.allow_unix_sockets);
	strlist_free(&s->net.allow_mach_lookup);
	free(s->net.parent.http);
	free(s->net.parent.https);
	free(s->net.parent.no_proxy);
	free(s->net.mitm.socket_path);
	strlist_free(&s->net.mitm.domains);
	strlist_free(&s->net.strip_headers);
	free(s->net.tls.ca_cert_path);
	free(s->net.tls.ca_key_path);
	strlist_free(&s->net.tls.exclude_domains);
	strlist_free(&s->net.tls.extra_ca_paths);
	path_list_free(&s->fs.deny_read);
	path_list_free(&s->fs.allow_read);
	path_list_free(&s->fs.allow_write);
	path_list_free(&s->fs.deny_write);
	for (i = 0; i < s->nignore; i++) {
		free(s->ignore[i].pattern);
		strlist_free(&s->ignore[i].subs);
	}
	free(s->ignore);
	free(s->bwrap_path);
	strlist_free(&s->git_safe_dirs);
	free(s->win.sandbox_user);
	free(s->win.sublayer_guid);
	free(s->win.wfp_sublayer_guid);
	free(s->win.srt_win_path);
	settings_cred_free(&s->cred);
	strlist_free(&s->layers.options);
	memset(s, 0, sizeof(*s));
}
