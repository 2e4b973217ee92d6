/*
 * SOCKS5 server side (RFC 1928, username/password of RFC 1929): an incremental parser.
 * Bytes are fed as they arrive, in any split (one byte at a time, or greeting, auth and
 * request in one segment). The parser never consumes a byte past the end of the message
 * it is completing, so whatever follows the request (data the client sent early) stays
 * with the caller. Pure logic: no I/O, no allocation, every length bounded.
 */
#ifndef SRT_SOCKS5_H
#define SRT_SOCKS5_H

#include <stddef.h>
#include <stdint.h>

#define SOCKS5_VERSION 0x05
#define SOCKS5_AUTH_VERSION 0x01 /* RFC 1929 subnegotiation version */

/* The longest message: a username/password request, 1 + 1 + 255 + 1 + 255 bytes. */
#define SOCKS5_MSG_MAX 513
#define SOCKS5_REPLY_MAX 10    /* the longest reply we send (ATYP 1, 0.0.0.0:0) */
#define SOCKS5_HOST_MAX 255    /* a DOMAINNAME is at most 255 bytes */
#define SOCKS5_HOSTTEXT_MAX 64 /* room for an IPv6 literal in text */

/* Where the conversation is, in RFC 1928 order. */
enum socks5_state {
	SOCKS5_ST_GREETING, /* VER NMETHODS METHODS */
	SOCKS5_ST_AUTH,     /* RFC 1929: VER ULEN UNAME PLEN PASSWD */
	SOCKS5_ST_REQUEST,  /* VER CMD RSV ATYP DST.ADDR DST.PORT */
	SOCKS5_ST_DONE,     /* a CONNECT request was parsed: the caller takes over */
	SOCKS5_ST_FAILED,   /* the reply (if any) is the last thing sent, then close */
};

enum socks5_method {
	SOCKS5_METHOD_NONE = 0x00,
	SOCKS5_METHOD_USERPASS = 0x02,
	SOCKS5_METHOD_REJECT = 0xff, /* no acceptable methods */
};

enum socks5_cmd {
	SOCKS5_CMD_CONNECT = 0x01,
	SOCKS5_CMD_BIND = 0x02,
	SOCKS5_CMD_UDP = 0x03,
};

enum socks5_atyp {
	SOCKS5_ATYP_IPV4 = 0x01,
	SOCKS5_ATYP_DOMAIN = 0x03,
	SOCKS5_ATYP_IPV6 = 0x04,
};

/* REP field of a reply (RFC 1928 §6). */
enum socks5_rep {
	SOCKS5_REP_SUCCEEDED = 0x00,
	SOCKS5_REP_GENERAL_FAILURE = 0x01,
	SOCKS5_REP_NOT_ALLOWED = 0x02,
	SOCKS5_REP_NET_UNREACHABLE = 0x03,
	SOCKS5_REP_HOST_UNREACHABLE = 0x04,
	SOCKS5_REP_CONN_REFUSED = 0x05,
	SOCKS5_REP_TTL_EXPIRED = 0x06,
	SOCKS5_REP_CMD_UNSUPPORTED = 0x07,
	SOCKS5_REP_ATYP_UNSUPPORTED = 0x08,
};

/* What socks5_feed() found. */
enum socks5_event {
	SOCKS5_EV_MORE,    /* all input used, the current message is incomplete */
	SOCKS5_EV_REPLY,   /* send reply[0..replylen), then keep feeding */
	SOCKS5_EV_REQUEST, /* a CONNECT request is in req: decide, then reply */
	SOCKS5_EV_CLOSE,   /* send reply[0..replylen) if any, then close */
};

/* Why the parser gave up (for the log); SOCKS5_ERR_NONE while all is well. */
enum socks5_error {
	SOCKS5_ERR_NONE,
	SOCKS5_ERR_VERSION,       /* not SOCKS5 (SOCKS4 or garbage) */
	SOCKS5_ERR_NO_METHODS,    /* NMETHODS is 0 */
	SOCKS5_ERR_NO_ACCEPTABLE, /* no method we accept was offered */
	SOCKS5_ERR_AUTH_VERSION,  /* RFC 1929 VER is not 1 */
	SOCKS5_ERR_AUTH_FAILED,   /* wrong username or password */
	SOCKS5_ERR_CMD,           /* BIND, UDP ASSOCIATE or an unknown command */
	SOCKS5_ERR_ATYP,          /* unknown address type */
	SOCKS5_ERR_STATE,         /* fed after DONE or FAILED */
};

struct socks5_request {
	uint8_t cmd;
	uint8_t atyp;
	uint16_t port;
	uint8_t addr[16]; /* ATYP 1: 4 bytes, ATYP 4: 16 bytes */
	/* The destination as text: the DOMAINNAME bytes exactly as sent (they may hold a
	 * NUL or anything else: the policy judges them), or the address in text. */
	char host[SOCKS5_HOST_MAX + 1];
	size_t hostlen;
};

struct socks5 {
	enum socks5_state state;
	enum socks5_error error;
	/* Configuration: when user is set, RFC 1929 is required and no-auth is not offered. */
	const char *user, *pass;
	size_t userlen, passlen;
	/* The message being assembled. */
	uint8_t buf[SOCKS5_MSG_MAX];
	size_t len;
	/* Results. */
	uint8_t method; /* the method chosen by the greeting */
	struct socks5_request req;
	uint8_t reply[SOCKS5_REPLY_MAX];
	size_t replylen;
};

/* user == NULL: no authentication. The credentials are not copied and must outlive s. */
void socks5_init(struct socks5 *s, const char *user, const char *pass);

/*
 * Feed len bytes; *used is how many were consumed (never past the message just
 * completed). Call again with the rest after handling each event other than MORE.
 */
enum socks5_event socks5_feed(struct socks5 *s, const uint8_t *data, size_t len, size_t *used);

/* The 10-byte reply VER REP RSV ATYP=1 BND.ADDR=0.0.0.0 BND.PORT=0; returns 10. */
size_t socks5_reply_build(uint8_t *out, enum socks5_rep rep);

const char *socks5_error_str(enum socks5_error e);
const char *socks5_state_str(enum socks5_state st);

#endif
