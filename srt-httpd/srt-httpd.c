/*
 * srt-httpd: the filtering HTTP proxy (SPEC §2, §4; BEHAVIOR §3.2-3.3). The shared core
 * (lib/proxyd/proxy.c) runs the daemon; this program brings the HTTP side: conn.c reads request
 * heads and writes replies, forward.c forwards absolute-form requests over connections
 * that pool.c keeps for reuse, connect.c opens CONNECT tunnels.
 */
#include "httpd.h"

static const struct proxy_proto httpd_proto = {
	.prog = "srt-httpd",
	.default_listen = "127.0.0.1:3128",
	.usage =
	    "srt-httpd (-p POLICY | -s SETTINGS | --policy-fd N) [-l ADDR]... "
	    "[--listen-fd N]...\n"
	    "                 [--listen-any-interface]\n"
	    "                 [--log FILE | --log-fd N] [--audit] [--auth USER:PASS] "
	    "[--lifeline-fd N]\n"
	    "                 [--max-conns N] [--idle-timeout SEC] [--head-timeout SEC] [--ca-fd N]\n"
	    "                 [--control-fd N] [--ready-fd N] [--no-sandbox] [-d]\n"
	    "                 [--decider-fd N | --decider-in N --decider-out N] [--ask]\n"
	    "                 [--decider-timeout MS] [--decider-ready-fd N] [--handoff-fd N]\n"
	    "                 [--plaintext-header-set] [--strip-response-header NAME]...\n"
	    "       srt-httpd --decider-fd N | --decider-in N --decider-out N [-l ADDR]...\n"
	    "                 [--listen-fd N]... [--ca-fd N] (proxy mode: the policy is the "
	    "decider's)\n"
	    "       srt-httpd --relay-to PORT [-l ADDR]... [--listen-fd N]... "
	    "[--lifeline-fd N]\n"
	    "                 [--max-conns N] [--idle-timeout SEC] [--no-sandbox] [-d]",
	.accept = conn_accept,
	.refuse = conn_refuse,
	.drain = pool_flush,
	.spare_fds = POOL_MAX,
	.tls_terminate = true,
	.takes_decider = true,
	.start = ask_start,
	.handoff = term_handoff,
	.relay_accept = proxy_relay_accept,
};

int
main(int argc, char **argv)
{
	return proxy_main(argc, argv, &httpd_proto);
}
