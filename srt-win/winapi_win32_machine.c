/*
 * winapi.h on Windows (mingw-w64), the machine's state (winapi_win32.c has the rest):
 * accounts and groups, the machine record in the registry, the WFP filters and the
 * trusted certificates. Built only by `make win`.
 */
#ifdef _WIN32

#include <winsock2.h>
#include <ws2tcpip.h>
#include <windows.h>
#include <bcrypt.h>
#include <initguid.h>
#include <fwpmu.h>
#include <lm.h>
#include <sddl.h>
#include <wincrypt.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "winapi_win32.h"

#ifndef FWPM_FILTER_FLAG_PERSISTENT
#define FWPM_FILTER_FLAG_PERSISTENT 0x00000001
#endif
#ifndef FWPM_SUBLAYER_FLAG_PERSISTENT
#define FWPM_SUBLAYER_FLAG_PERSISTENT 0x0001
#endif

/* Not in mingw-w64's headers; Microsoft's documented values. */
static const GUID LAYER_CONNECT_V4 = { 0xc38d57d1, 0x05a7, 0x4c33,
	{ 0x90, 0x4f, 0x7f, 0xbc, 0xee, 0xe6, 0x0e, 0x82 } };
static const GUID LAYER_CONNECT_V6 = { 0x4a72393b, 0x319f, 0x44bc,
	{ 0x84, 0xc3, 0xba, 0x54, 0xdc, 0xb3, 0xb6, 0xb4 } };
static const GUID COND_USER_ID = { 0xaf043a0a, 0xb34d, 0x4f86,
	{ 0x97, 0x9c, 0xc9, 0x03, 0x71, 0xaf, 0x6e, 0x66 } };
static const GUID COND_REMOTE_ADDRESS = { 0xb235ae9a, 0x1d64, 0x49b8,
	{ 0xa4, 0x4c, 0x5f, 0xf3, 0xd9, 0x09, 0x50, 0x45 } };
static const GUID COND_REMOTE_PORT = { 0xc35a604d, 0xd22b, 0x4e1a,
	{ 0x91, 0xb4, 0x68, 0xf6, 0x74, 0xee, 0x67, 0x4b } };

#define REG_KEY L"SOFTWARE\\srt-win"

/* --- accounts ---------------------------------------------------------------------------- */

int
wa_account_sid(const char *name, char **sid)
{
	wchar_t *w = W(name), dom[256];
	BYTE buf[SECURITY_MAX_SID_SIZE];
	DWORD n = sizeof(buf), dn = 256;
	SID_NAME_USE use;
	BOOL ok = LookupAccountNameW(NULL, w, buf, &n, dom, &dn, &use);
	DWORD e = GetLastError();

	free(w);
	if (!ok)
		return e == ERROR_NONE_MAPPED ? 1 : fail_code(e, "LookupAccountNameW %s", name);
	*sid = sid_str(buf);
	return *sid != NULL ? 0 : fail_last("ConvertSidToStringSidW");
}

static int
net_fail(NET_API_STATUS st, const char *what, const char *name)
{
	return fail_code(st, "%s %s", what, name);
}

int
wa_group_create(const char *name, const char *comment)
{
	LOCALGROUP_INFO_1 gi;
	wchar_t *wn = W(name), *wc = W(comment);
	NET_API_STATUS st;

	gi.lgrpi1_name = wn;
	gi.lgrpi1_comment = wc;
	st = NetLocalGroupAdd(NULL, 1, (LPBYTE)&gi, NULL);
	free(wn);
	free(wc);
	if (st == NERR_Success || st == NERR_GroupExists || st == ERROR_ALIAS_EXISTS)
		return 0;
	return net_fail(st, "NetLocalGroupAdd", name);
}

int
wa_group_delete(const char *name)
{
	wchar_t *w = W(name);
	NET_API_STATUS st = NetLocalGroupDel(NULL, w);

	free(w);
	return st == NERR_Success || st == NERR_GroupNotFound || st == ERROR_NO_SUCH_ALIAS
	    ? 0
	    : net_fail(st, "NetLocalGroupDel", name);
}

/* Keep the account off the sign-in screen. */
static void
hide_from_logon(const wchar_t *name)
{
	HKEY k;
	DWORD zero = 0;

	if (RegCreateKeyExW(HKEY_LOCAL_MACHINE,
		L"SOFTWARE\\Microsoft\\Windows NT\\"
		L"CurrentVersion\\Winlogon\\SpecialAccounts\\UserList",
		0, NULL, 0, KEY_SET_VALUE, NULL, &k, NULL) != ERROR_SUCCESS)
		return;
	RegSetValueExW(k, name, 0, REG_DWORD, (const BYTE *)&zero, sizeof(zero));
	RegCloseKey(k);
}

int
wa_user_create(const char *name, const char *password, const char *comment)
{
	USER_INFO_1 ui = { 0 };
	wchar_t *wn = W(name), *wp = W(password), *wc = W(comment);
	NET_API_STATUS st;

	ui.usri1_name = wn;
	ui.usri1_password = wp;
	ui.usri1_priv = USER_PRIV_USER;
	ui.usri1_comment = wc;
	ui.usri1_flags = UF_SCRIPT | UF_DONT_EXPIRE_PASSWD | UF_PASSWD_CANT_CHANGE;
	st = NetUserAdd(NULL, 1, (LPBYTE)&ui, NULL);
	if (st == NERR_Success)
		hide_from_logon(wn);
	free_secret(wp);
	free(wn);
	free(wc);
	return st == NERR_Success ? 0 : net_fail(st, "NetUserAdd", name);
}

int
wa_user_set_password(const char *name, const char *password)
{
	USER_INFO_1003 ui;
	wchar_t *wn = W(name), *wp = W(password);
	NET_API_STATUS st;

	ui.usri1003_password = wp;
	st = NetUserSetInfo(NULL, wn, 1003, (LPBYTE)&ui, NULL);
	free_secret(wp);
	free(wn);
	return st == NERR_Success ? 0 : net_fail(st, "NetUserSetInfo", name);
}

int
wa_user_delete(const char *name)
{
	wchar_t *w = W(name);
	NET_API_STATUS st = NetUserDel(NULL, w);

	free(w);
	return st == NERR_Success || st == NERR_UserNotFound ? 0
							     : net_fail(st, "NetUserDel", name);
}

int
wa_group_add(const char *group, const char *user)
{
	LOCALGROUP_MEMBERS_INFO_3 mi;
	wchar_t *wg = W(group), *wu = W(user);
	NET_API_STATUS st;

	mi.lgrmi3_domainandname = wu;
	st = NetLocalGroupAddMembers(NULL, wg, 3, (LPBYTE)&mi, 1);
	free(wg);
	free(wu);
	return st == NERR_Success || st == ERROR_MEMBER_IN_ALIAS
	    ? 0
	    : net_fail(st, "NetLocalGroupAddMembers", group);
}

int
wa_group_has(const char *group, const char *user)
{
	LOCALGROUP_MEMBERS_INFO_3 *mi = NULL;
	DWORD read = 0, total = 0;
	wchar_t *wg = W(group), *wu = W(user);
	NET_API_STATUS st = NetLocalGroupGetMembers(
	    NULL, wg, 3, (LPBYTE *)&mi, MAX_PREFERRED_LENGTH, &read, &total, NULL);
	int has = 0;

	if (st == NERR_Success) {
		for (DWORD i = 0; i < read && !has; i++) {
			const wchar_t *n = wcsrchr(mi[i].lgrmi3_domainandname, L'\\');

			n = n != NULL ? n + 1 : mi[i].lgrmi3_domainandname;
			has = _wcsicmp(n, wu) == 0;
		}
		NetApiBufferFree(mi);
	}
	free(wg);
	free(wu);
	return st == NERR_Success ? has : -1;
}

int
wa_current_sid(char **sid)
{
	HANDLE t;
	TOKEN_USER *tu;
	DWORD n = 0;

	if (!OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &t))
		return fail_last("OpenProcessToken");
	GetTokenInformation(t, TokenUser, NULL, 0, &n);
	tu = xmalloc(n ? n : 1);
	if (!GetTokenInformation(t, TokenUser, tu, n, &n)) {
		free(tu);
		CloseHandle(t);
		return fail_last("GetTokenInformation");
	}
	*sid = sid_str(tu->User.Sid);
	free(tu);
	CloseHandle(t);
	return *sid != NULL ? 0 : -1;
}

int
wa_random(void *buf, size_t n)
{
	NTSTATUS st = BCryptGenRandom(NULL, buf, (ULONG)n, BCRYPT_USE_SYSTEM_PREFERRED_RNG);

	return st == 0 ? 0 : fail_code((DWORD)st, "BCryptGenRandom");
}

/* --- the machine record -------------------------------------------------------------- */

int
wa_record_get(const char *name, char **value)
{
	wchar_t *w = W(name), *buf;
	DWORD n = 0, rc;

	rc = RegGetValueW(HKEY_LOCAL_MACHINE, REG_KEY, w, RRF_RT_REG_SZ, NULL, NULL, &n);
	if (rc == ERROR_FILE_NOT_FOUND) {
		free(w);
		return 1;
	}
	if (rc != ERROR_SUCCESS) {
		free(w);
		return fail_code(rc, "reading HKLM\\SOFTWARE\\srt-win\\%s", name);
	}
	buf = xcalloc(n / sizeof(wchar_t) + 1, sizeof(wchar_t));
	rc = RegGetValueW(HKEY_LOCAL_MACHINE, REG_KEY, w, RRF_RT_REG_SZ, NULL, buf, &n);
	free(w);
	if (rc != ERROR_SUCCESS) {
		free(buf);
		return fail_code(rc, "reading HKLM\\SOFTWARE\\srt-win\\%s", name);
	}
	*value = U(buf);
	SecureZeroMemory(buf, n);
	free(buf);
	return 0;
}

/* The key: SYSTEM and Administrators full, Users read, the sandbox group nothing (its
 * account must not read its own password). */
static int
record_key(HKEY *k)
{
	PSECURITY_DESCRIPTOR sd = NULL;
	char *gsid = NULL, *sddl;
	wchar_t *w;
	DWORD rc;

	if (wa_account_sid(WA_SANDBOX_GROUP, &gsid) != 0)
		gsid = NULL;
	sddl = xasprintf("D:P(A;OICI;KA;;;SY)(A;OICI;KA;;;BA)(A;OICI;KR;;;BU)%s%s%s",
	    gsid ? "(D;OICI;KA;;;" : "", gsid ? gsid : "", gsid ? ")" : "");
	w = W(sddl);
	free(sddl);
	free(gsid);
	if (!ConvertStringSecurityDescriptorToSecurityDescriptorW(
		w, SDDL_REVISION_1, &sd, NULL)) {
		free(w);
		return fail_last("the record's security descriptor");
	}
	free(w);
	rc = RegCreateKeyExW(
	    HKEY_LOCAL_MACHINE, REG_KEY, 0, NULL, 0, KEY_ALL_ACCESS, NULL, k, NULL);
	if (rc == ERROR_SUCCESS)
		rc = RegSetKeySecurity(*k, DACL_SECURITY_INFORMATION, sd);
	LocalFree(sd);
	return rc == ERROR_SUCCESS ? 0 : fail_code(rc, "HKLM\\SOFTWARE\\srt-win");
}

int
wa_record_set(const char *name, const char *value)
{
	HKEY k;
	wchar_t *wn, *wv;
	DWORD rc;

	if (record_key(&k) != 0)
		return -1;
	wn = W(name);
	wv = W(value);
	rc = RegSetValueExW(
	    k, wn, 0, REG_SZ, (const BYTE *)wv, (DWORD)((wcslen(wv) + 1) * sizeof(wchar_t)));
	free_secret(wv);
	free(wn);
	RegCloseKey(k);
	return rc == ERROR_SUCCESS ? 0 : fail_code(rc, "writing the record %s", name);
}

int
wa_record_delete(const char *name)
{
	wchar_t *w = W(name);
	DWORD rc = RegDeleteKeyValueW(HKEY_LOCAL_MACHINE, REG_KEY, w);

	free(w);
	RegDeleteKeyW(HKEY_LOCAL_MACHINE, REG_KEY); /* if it is empty now */
	return rc == ERROR_SUCCESS || rc == ERROR_FILE_NOT_FOUND
	    ? 0
	    : fail_code(rc, "deleting the record %s", name);
}

/* --- WFP -------------------------------------------------------------------------------- */

static int
parse_guid(const char *s, GUID *g)
{
	wchar_t *w, *b;
	HRESULT hr;

	b = W(s);
	w = xcalloc(wcslen(b) + 3, sizeof(wchar_t));
	swprintf(w, wcslen(b) + 3, L"{%ls}", b);
	free(b);
	hr = CLSIDFromString(w, g);
	free(w);
	return SUCCEEDED(hr) ? 0 : fail_code((DWORD)hr, "GUID %s", s);
}

static int
engine_open(HANDLE *e)
{
	DWORD rc = FwpmEngineOpen0(NULL, RPC_C_AUTHN_WINNT, NULL, NULL, e);

	return rc == ERROR_SUCCESS ? 0 : fail_code(rc, "FwpmEngineOpen0");
}

/* A security descriptor granting FWP_ACTRL_MATCH_FILTER to one SID: the user condition. */
static PSECURITY_DESCRIPTOR
match_sd(const char *sid, ULONG *len)
{
	char *sddl = xasprintf("D:(A;;CC;;;%s)", sid);
	wchar_t *w = W(sddl);
	PSECURITY_DESCRIPTOR sd = NULL;

	free(sddl);
	if (!ConvertStringSecurityDescriptorToSecurityDescriptorW(
		w, SDDL_REVISION_1, &sd, len)) {
		fail_last("the filter's user condition");
		sd = NULL;
	}
	free(w);
	return sd;
}

int
wa_wfp_install(const char *sublayer, const struct wa_filter *f, size_t n)
{
	HANDLE e = NULL;
	FWPM_SUBLAYER0 sl = { 0 };
	GUID key;
	DWORD rc;
	int ret = -1, tx = 0;

	if (parse_guid(sublayer, &key) != 0 || engine_open(&e) != 0)
		return -1;
	if ((rc = FwpmTransactionBegin0(e, 0)) != ERROR_SUCCESS) {
		fail_code(rc, "FwpmTransactionBegin0");
		goto out;
	}
	tx = 1;
	sl.subLayerKey = key;
	sl.displayData.name = L"srt-win";
	sl.displayData.description = L"srt sandbox account: egress only to the proxies";
	sl.flags = FWPM_SUBLAYER_FLAG_PERSISTENT;
	sl.weight = 0x8000;
	rc = FwpmSubLayerAdd0(e, &sl, NULL);
	if (rc != ERROR_SUCCESS && rc != (DWORD)FWP_E_ALREADY_EXISTS) {
		fail_code(rc, "FwpmSubLayerAdd0");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		FWPM_FILTER0 flt = { 0 };
		FWPM_FILTER_CONDITION0 c[3];
		FWP_BYTE_BLOB blob;
		FWP_V4_ADDR_AND_MASK v4 = { 0x7f000000, 0xff000000 };
		FWP_BYTE_ARRAY16 v6 = { { 0 } };
		FWP_RANGE0 ports;
		PSECURITY_DESCRIPTOR sd;
		ULONG sdlen = 0;
		UINT64 id;
		UINT32 nc = 0;
		wchar_t *name = W(f[i].name);

		if ((sd = match_sd(f[i].user_sid, &sdlen)) == NULL) {
			free(name);
			goto out;
		}
		memset(c, 0, sizeof(c));
		blob.size = sdlen;
		blob.data = sd;
		c[nc].fieldKey = COND_USER_ID;
		c[nc].matchType = FWP_MATCH_EQUAL;
		c[nc].conditionValue.type = FWP_SECURITY_DESCRIPTOR_TYPE;
		c[nc++].conditionValue.sd = &blob;
		if (f[i].loopback) {
			c[nc].fieldKey = COND_REMOTE_ADDRESS;
			c[nc].matchType = FWP_MATCH_EQUAL;
			if (f[i].v6) {
				v6.byteArray16[15] = 1;
				c[nc].conditionValue.type = FWP_BYTE_ARRAY16_TYPE;
				c[nc++].conditionValue.byteArray16 = &v6;
			} else {
				c[nc].conditionValue.type = FWP_V4_ADDR_MASK;
				c[nc++].conditionValue.v4AddrMask = &v4;
			}
		}
		if (f[i].port_lo != 0) {
			ports.valueLow.type = FWP_UINT16;
			ports.valueLow.uint16 = (UINT16)f[i].port_lo;
			ports.valueHigh.type = FWP_UINT16;
			ports.valueHigh.uint16 = (UINT16)f[i].port_hi;
			c[nc].fieldKey = COND_REMOTE_PORT;
			c[nc].matchType = FWP_MATCH_RANGE;
			c[nc].conditionValue.type = FWP_RANGE_TYPE;
			c[nc++].conditionValue.rangeValue = &ports;
		}
		flt.displayData.name = name;
		flt.displayData.description = L"srt-win";
		flt.flags = FWPM_FILTER_FLAG_PERSISTENT;
		flt.layerKey = f[i].v6 ? LAYER_CONNECT_V6 : LAYER_CONNECT_V4;
		flt.subLayerKey = key;
		flt.weight.type = FWP_UINT8;
		flt.weight.uint8 = f[i].weight;
		flt.numFilterConditions = nc;
		flt.filterCondition = c;
		flt.action.type = f[i].permit ? FWP_ACTION_PERMIT : FWP_ACTION_BLOCK;
		rc = FwpmFilterAdd0(e, &flt, NULL, &id);
		LocalFree(sd);
		free(name);
		if (rc != ERROR_SUCCESS) {
			fail_code(rc, "FwpmFilterAdd0 %s", f[i].name);
			goto out;
		}
	}
	if ((rc = FwpmTransactionCommit0(e)) != ERROR_SUCCESS) {
		fail_code(rc, "FwpmTransactionCommit0");
		goto out;
	}
	tx = 0;
	ret = 0;
out:
	if (tx)
		FwpmTransactionAbort0(e);
	if (e)
		FwpmEngineClose0(e);
	return ret;
}

/* Each filter under the sublayer at the two connect layers: count, or delete. */
static int
wfp_each(const char *sublayer, int del, int *count)
{
	const GUID *layers[2] = { &LAYER_CONNECT_V4, &LAYER_CONNECT_V6 };
	HANDLE e = NULL, en;
	GUID key;
	DWORD rc;
	int ret = -1;

	*count = 0;
	if (parse_guid(sublayer, &key) != 0 || engine_open(&e) != 0)
		return -1;
	for (int l = 0; l < 2; l++) {
		FWPM_FILTER_ENUM_TEMPLATE0 t = { 0 };
		FWPM_FILTER0 **v = NULL;
		UINT32 got = 0;

		t.layerKey = *layers[l];
		t.enumType = FWP_FILTER_ENUM_OVERLAPPING;
		t.actionMask = 0xFFFFFFFF;
		if ((rc = FwpmFilterCreateEnumHandle0(e, &t, &en)) != ERROR_SUCCESS) {
			fail_code(rc, "FwpmFilterCreateEnumHandle0");
			goto out;
		}
		do {
			rc = FwpmFilterEnum0(e, en, 256, &v, &got);
			if (rc != ERROR_SUCCESS) {
				FwpmFilterDestroyEnumHandle0(e, en);
				fail_code(rc, "FwpmFilterEnum0");
				goto out;
			}
			for (UINT32 i = 0; i < got; i++) {
				if (!IsEqualGUID(&v[i]->subLayerKey, &key))
					continue;
				(*count)++;
				if (del &&
				    (rc = FwpmFilterDeleteById0(e, v[i]->filterId)) !=
					ERROR_SUCCESS &&
				    rc != (DWORD)FWP_E_FILTER_NOT_FOUND) {
					FwpmFreeMemory0((void **)&v);
					FwpmFilterDestroyEnumHandle0(e, en);
					fail_code(rc, "FwpmFilterDeleteById0");
					goto out;
				}
			}
			if (v != NULL)
				FwpmFreeMemory0((void **)&v);
		} while (got == 256);
		FwpmFilterDestroyEnumHandle0(e, en);
	}
	if (del) {
		rc = FwpmSubLayerDeleteByKey0(e, &key);
		if (rc != ERROR_SUCCESS && rc != (DWORD)FWP_E_SUBLAYER_NOT_FOUND) {
			fail_code(rc, "FwpmSubLayerDeleteByKey0");
			goto out;
		}
	}
	ret = 0;
out:
	FwpmEngineClose0(e);
	return ret;
}

int
wa_wfp_count(const char *sublayer, int *n)
{
	return wfp_each(sublayer, 0, n);
}

int
wa_wfp_remove(const char *sublayer)
{
	int n;

	return wfp_each(sublayer, 1, &n);
}

int
wa_connect_probe(const char *host, int port, int *outcome)
{
	WSADATA wd;
	struct addrinfo hints = { 0 }, *ai = NULL;
	char ps[8];
	SOCKET s;
	u_long nb = 1;
	fd_set wr, ex;
	struct timeval tv = { 5, 0 };
	int r, err = 0, len = sizeof(err);

	if (WSAStartup(MAKEWORD(2, 2), &wd) != 0)
		return fail_code((DWORD)WSAGetLastError(), "WSAStartup");
	snprintf(ps, sizeof(ps), "%d", port);
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICHOST;
	if (getaddrinfo(host, ps, &hints, &ai) != 0)
		return fail_code((DWORD)WSAGetLastError(), "%s is not an address", host);
	s = socket(ai->ai_family, SOCK_STREAM, IPPROTO_TCP);
	if (s == INVALID_SOCKET) {
		freeaddrinfo(ai);
		return fail_code((DWORD)WSAGetLastError(), "socket");
	}
	ioctlsocket(s, FIONBIO, &nb);
	r = connect(s, ai->ai_addr, (int)ai->ai_addrlen);
	freeaddrinfo(ai);
	if (r == 0)
		*outcome = 0;
	else if (WSAGetLastError() == WSAEACCES)
		*outcome = 1; /* refused by a filter before any packet left */
	else if (WSAGetLastError() != WSAEWOULDBLOCK)
		*outcome = 2;
	else {
		FD_ZERO(&wr);
		FD_ZERO(&ex);
		FD_SET(s, &wr);
		FD_SET(s, &ex);
		if (select(0, NULL, &wr, &ex, &tv) <= 0)
			*outcome = 2;
		else {
			getsockopt(s, SOL_SOCKET, SO_ERROR, (char *)&err, &len);
			*outcome = err == 0 ? 0 : err == WSAEACCES ? 1 : 2;
		}
	}
	closesocket(s);
	WSACleanup();
	return 0;
}

/* --- certificates ----------------------------------------------------------------------- */

int
wa_trust_cert(const uint8_t *der, size_t len, char **thumb)
{
	HCERTSTORE st = CertOpenStore(
	    CERT_STORE_PROV_SYSTEM_W, 0, 0, CERT_SYSTEM_STORE_CURRENT_USER, L"Root");
	PCCERT_CONTEXT ctx = NULL;
	BYTE hash[20];
	DWORD n = sizeof(hash);
	char hex[41];

	if (st == NULL)
		return fail_last("CertOpenStore Root");
	if (!CertAddEncodedCertificateToStore(st, X509_ASN_ENCODING, der, (DWORD)len,
		CERT_STORE_ADD_REPLACE_EXISTING, &ctx)) {
		CertCloseStore(st, 0);
		return fail_last("CertAddEncodedCertificateToStore");
	}
	if (!CertGetCertificateContextProperty(ctx, CERT_SHA1_HASH_PROP_ID, hash, &n)) {
		CertFreeCertificateContext(ctx);
		CertCloseStore(st, 0);
		return fail_last("CertGetCertificateContextProperty");
	}
	for (DWORD i = 0; i < n && i < 20; i++)
		snprintf(hex + 2 * i, 3, "%02x", hash[i]);
	*thumb = xstrdup(hex);
	CertFreeCertificateContext(ctx);
	CertCloseStore(st, 0);
	return 0;
}

#endif /* _WIN32 */
