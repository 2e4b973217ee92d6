/* Long options of the subcommands: "--name VALUE" or "--name=VALUE", flags, lists. */
#include <string.h>

#include "srt-win.h"

int
opts_parse(const char *cmd, int argc, char **argv, const struct opt *opts, struct strlist *rest,
    int allow_operands)
{
	int i;

	for (i = 0; i < argc; i++) {
		const char *a = argv[i], *eq, *val;
		const struct opt *o;
		size_t n;

		if (strcmp(a, "--") == 0) {
			i++;
			break;
		}
		if (strncmp(a, "--", 2) != 0 || a[2] == '\0') {
			if (!allow_operands) {
				sw_err(
				    "usage", "srt-win: %s: unexpected argument \"%s\"", cmd, a);
				return -1;
			}
			strlist_push(rest, a);
			continue;
		}
		eq = strchr(a, '=');
		n = eq != NULL ? (size_t)(eq - a) : strlen(a);
		for (o = opts; o->name != NULL; o++)
			if (strlen(o->name) == n && strncmp(o->name, a, n) == 0)
				break;
		if (o->name == NULL) {
			sw_err("usage", "srt-win: %s: unknown option \"%.*s\"", cmd, (int)n, a);
			return -1;
		}
		if (o->type == OT_FLAG) {
			if (eq != NULL) {
				sw_err("usage", "srt-win: %s: %s takes no value", cmd, o->name);
				return -1;
			}
			*(int *)o->dst = 1;
			continue;
		}
		if (eq != NULL)
			val = eq + 1;
		else if (i + 1 < argc)
			val = argv[++i];
		else {
			sw_err("usage", "srt-win: %s: %s needs a value", cmd, o->name);
			return -1;
		}
		if (o->type == OT_STR) {
			if (*(const char **)o->dst != NULL) {
				sw_err("usage", "srt-win: %s: %s given twice", cmd, o->name);
				return -1;
			}
			*(const char **)o->dst = val;
		} else
			strlist_push((struct strlist *)o->dst, val);
	}
	for (; i < argc; i++)
		strlist_push(rest, argv[i]);
	return 0;
}
