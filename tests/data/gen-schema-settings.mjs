// Generates tests/data/schema-settings.jsonl: every field of the reference's settings schema,
// read from the installed package itself, given a battery of values, each document run
// through the reference's own validation (SandboxRuntimeConfigSchema, what its config
// loader applies), with its verdict and issue paths (test data; no reference code here).
//
//   node tests/data/gen-schema-settings.mjs REFDIR > tests/data/schema-settings.jsonl
//   node tests/data/gen-schema-settings.mjs REFDIR --files DIR   (one NAME.json each,
//                                 and DIR/index.jsonl: name, expect, issues, change)
//
// REFDIR: node_modules/@anthropic-ai/sandbox-runtime. For each field (at any depth, array
// elements and record values included) the document is the smallest valid one with that
// field set to: each sample value that fits the field (domain entries, URLs, paths,
// names ... by the field's name), and a fixed battery of other JSON values (null, true,
// 0, -1, 1.5, 65536, "", "x", [], ["x"], [1], {}, {"x": 1}). Hand-written documents
// follow for the checks that relate fields to each other.
import * as fs from 'node:fs';

const [refdir, flag, outdir] = process.argv.slice(2);
if (!refdir) {
  process.stderr.write('usage: node gen-schema-settings.mjs REFDIR [--files DIR]\n');
  process.exit(2);
}
const { SandboxRuntimeConfigSchema } = await import(refdir + '/dist/sandbox/sandbox-config.js');

const unwrap = s => {
  for (;;) {
    const t = s._def.typeName;
    if (t === 'ZodOptional' || t === 'ZodDefault' || t === 'ZodNullable') s = s._def.innerType;
    else if (t === 'ZodEffects') s = s._def.schema;
    else return s;
  }
};
const optional = s => {
  const t = s._def.typeName;
  return t === 'ZodOptional' || t === 'ZodDefault';
};

// Values that fit a field, by its name (the last key of its path, or its list's).
const samples = {
  allowedDomains: ['example.com', '*.example.com', 'example.com:443', '[::1]', '[::1]:8080',
    '1.2.3.4', 'localhost', '*.co.uk', 'EXAMPLE.COM'],
  deniedDomains: ['evil.example.com', '*', '*:22', '[2001:db8::1]', '169.254.169.254'],
  domains: ['api.example.com', '*.internal.example.org', '::1', '1.2.3.4'],
  excludeDomains: ['pinned.example.com', '*.example.com'],
  injectHosts: ['example.com'],
  deniedResolvedAddresses: ['10.0.0.0/8', 'fc00::/7', '192.168.1.10', '::ffff:1.2.3.4/120'],
  allowMachLookup: ['com.apple.x', 'com.example.*', '*'],
  http: ['http://proxy.example:3128', 'https://u:p@proxy.example:8443', 'socks5://x:1'],
  https: ['http://proxy.example:3128'],
  noProxy: ['localhost,.corp.example,10.0.0.0/8', '*'],
  socketPath: ['/tmp/mitm.sock'],
  caCertPath: ['/etc/ca.pem'],
  caKeyPath: ['/etc/ca.key'],
  extraCaCertPaths: ['/etc/extra.pem'],
  stripResponseHeaders: ['Set-Cookie', 'x_secret.header'],
  path: ['/x', '~/.netrc', 'rel/dir', 'C:\\srt-win.exe'],
  denyRead: ['~/.ssh', '/data/**/*.pem', { path: '/odd[1]', literal: true }],
  allowRead: ['~/.ssh/known_hosts', 'src/**'],
  allowWrite: ['.', '/tmp', 'src/**/*.ts'],
  denyWrite: ['.env', '/w/*'],
  name: ['GH_TOKEN', '_x1', 'lower'],
  accessKeyIdVar: ['AWS_ACCESS_KEY_ID'],
  secretAccessKeyVar: ['AWS_SECRET_ACCESS_KEY'],
  sessionTokenVar: ['AWS_SESSION_TOKEN'],
  extract: ['token:\\s*(\\S+)', '(?<t>[A-Za-z0-9]{20,})', 'no group', '(unclosed'],
  maskClaims: ['sub'],
  bwrapPath: ['/usr/bin/bwrap', 'bwrap'],
  socatPath: ['/usr/bin/socat'],
  javaAgentJarPath: ['/opt/agent.jar'],
  applyPath: ['/usr/lib/apply-seccomp'],
  argv0: ['apply-seccomp'],
  command: ['rg'],
  args: ['--hidden'],
  safeDirectories: ['/repo', '*'],
  sandboxUser: ['srt-sandbox', 'é'.repeat(21)],
  sublayerGuid: ['8d4c6d3e-1f2a-4b5c-9d6e-7f8091a2b3c4'],
  wfpSublayerGuid: ['8d4c6d3e-1f2a-4b5c-9d6e-7f8091a2b3c4'],
  proxyPortRange: [[60080, 60089]],
  deniedDomainReasons: ['SSH is blocked'],
  ignoreViolations: ['/usr/bin'],
};
const battery = [null, true, false, 0, -1, 1, 1.5, 65536, '', 'x', [], ['x'], [1], {}, { x: 1 }];

// The smallest valid value of a schema.
function minimal(s, key) {
  s = unwrap(s);
  const d = s._def;
  switch (d.typeName) {
  case 'ZodObject': {
    const o = {};
    for (const [k, v] of Object.entries(d.shape()))
      if (!optional(v)) o[k] = minimal(v, k);
    return o;
  }
  case 'ZodArray': return d.minLength ? [minimal(d.type, key)] : [];
  case 'ZodString': {
    const cand = samples[key] ?? ['x'];
    return cand.find(v => typeof v === 'string' && s.safeParse(v).success) ?? 'x';
  }
  case 'ZodNumber': {
    const min = (d.checks || []).find(c => c.kind === 'min');
    return min ? min.value : 1;
  }
  case 'ZodBoolean': return true;
  case 'ZodEnum': return d.values[0];
  case 'ZodRecord': return {};
  case 'ZodUnion': return minimal(d.options[0], key);
  case 'ZodTuple': return d.items.map(i => minimal(i, key));
  case 'ZodLiteral': return d.value;
  default: return undefined;
  }
}

// Every field: [path, schema, name], path a list of keys and array indexes.
const fields = [];
function walk(s, path, name) {
  const u = unwrap(s), d = u._def;
  if (path.length) fields.push([path, s, name]);
  if (d.typeName === 'ZodObject')
    for (const [k, v] of Object.entries(d.shape())) walk(v, [...path, k], k);
  else if (d.typeName === 'ZodArray') walk(d.type, [...path, 0], name);
  else if (d.typeName === 'ZodRecord') walk(d.valueType, [...path, 'key'], name);
  else if (d.typeName === 'ZodTuple') d.items.forEach((it, i) => walk(it, [...path, i], name));
}
walk(SandboxRuntimeConfigSchema, [], '');

const base = () => minimal(SandboxRuntimeConfigSchema, '');
// The document with value at path, the containers on the way made minimal.
function place(path, value) {
  const doc = base();
  let cur = doc, sch = unwrap(SandboxRuntimeConfigSchema);
  for (let i = 0; i < path.length; i++) {
    const k = path[i], last = i === path.length - 1;
    const d = sch._def;
    let child;
    if (d.typeName === 'ZodObject') child = d.shape()[k];
    else if (d.typeName === 'ZodArray') child = d.type;
    else if (d.typeName === 'ZodRecord') child = d.valueType;
    else if (d.typeName === 'ZodTuple') child = d.items[k];
    if (last) { cur[k] = value; break; }
    if (cur[k] === undefined || typeof cur[k] !== 'object') cur[k] = minimal(child, k);
    if (Array.isArray(cur[k]) && cur[k].length <= k) cur[k][0] = minimal(unwrap(child)._def.type, k);
    if (Array.isArray(cur[k]) && cur[k].length === 0) cur[k].push(minimal(unwrap(child)._def.type, k));
    cur = cur[k];
    sch = unwrap(child);
  }
  return doc;
}

const out = [];
const seen = new Set();
function add(change, settings) {
  const text = JSON.stringify(settings);
  if (seen.has(text)) return;
  seen.add(text);
  const r = SandboxRuntimeConfigSchema.safeParse(settings);
  const issues = r.success ? [] : r.error.issues.map(i => `${i.path.join('.')}: ${i.message}`);
  out.push({ change, settings, expect: r.success ? 'valid' : 'invalid', issues });
}

add('minimal', base());
for (const [path, s, name] of fields) {
  const where = path.join('.');
  if (where === 'network.filterRequest') continue;        // a function: hand cases below
  const u = unwrap(s)._def.typeName;
  const own = (samples[name] ?? []).map(v => u === 'ZodArray' ? [v] : v);
  for (const v of [...own, minimal(s, name), ...battery])
    if (v !== undefined) add(`${where} = ${JSON.stringify(v)}`, place(path, v));
}

// The checks across fields (the schema's refinements), by hand.
const b = base;
const withNet = (net, rest = {}) => ({ ...b(), ...rest, network: { ...b().network, ...net } });
const creds = (c, net = {}, fsx = {}) => ({ ...withNet(net), credentials: c,
  filesystem: { ...b().filesystem, ...fsx } });
const hand = [
  ['deny glob ending in /', { ...b(), filesystem: { ...b().filesystem, denyRead: ['/data/*/'] } }],
  ['deny glob ending in / when disabled', { ...b(), filesystem: { ...b().filesystem, disabled: true, denyWrite: ['/data/*/'] } }],
  ['relative deny glob ending in /', { ...b(), filesystem: { ...b().filesystem, denyRead: ['build/*/'] } }],
  ['tlsTerminate cert without key', withNet({ tlsTerminate: { caCertPath: '/a' } })],
  ['tlsTerminate cert and key', withNet({ tlsTerminate: { caCertPath: '/a', caKeyPath: '/b' } })],
  ['filterRequest string', withNet({ filterRequest: 'x' })],
  ['credentials deny file and env', creds({ files: [{ path: '~/.netrc', mode: 'deny' }], envVars: [{ name: 'GH_TOKEN', mode: 'deny' }] })],
  ['credentials deny glob file', creds({ files: [{ path: '~/.aws/*', mode: 'deny' }] })],
  ['credentials deny file slashed glob', creds({ files: [{ path: '/data/*/', mode: 'deny' }] })],
  ['credentials deny file slashed glob, fs disabled', creds({ files: [{ path: '/data/*/', mode: 'deny' }] }, {}, { disabled: true })],
  ['credentials mask env with plaintext', creds({ envVars: [{ name: 'T', mode: 'mask' }], allowPlaintextInject: true })],
  ['credentials mask env without tls', creds({ envVars: [{ name: 'T', mode: 'mask' }] })],
  ['credentials mask env with tls', creds({ envVars: [{ name: 'T', mode: 'mask' }] }, { tlsTerminate: {} })],
  ['credentials mask file dir', creds({ files: [{ path: '/d/', mode: 'mask' }], allowPlaintextInject: true })],
  ['credentials injectHosts covered', creds({ envVars: [{ name: 'T', mode: 'deny', injectHosts: ['api.github.com', '*.x.github.com'] }] }, { allowedDomains: ['*.github.com:443'] })],
  ['credentials injectHosts not covered', creds({ envVars: [{ name: 'T', mode: 'deny', injectHosts: ['other.org'] }] }, { allowedDomains: ['*.github.com'] })],
  ['credentials injectHosts wildcard by exact', creds({ envVars: [{ name: 'T', mode: 'deny', injectHosts: ['*.github.com'] }] }, { allowedDomains: ['github.com'] })],
  ['credentials injectHosts empty on deny', creds({ envVars: [{ name: 'T', mode: 'deny', injectHosts: [] }] })],
  ['credentials injectHosts empty on mask', creds({ envVars: [{ name: 'T', mode: 'mask', injectHosts: [] }], allowPlaintextInject: true })],
  ['credentials maskClaims without decode', creds({ envVars: [{ name: 'T', mode: 'deny', maskClaims: ['sub'] }] })],
  ['credentials maskClaims empty', creds({ files: [{ path: '/t', mode: 'deny', decode: 'jwt', maskClaims: [] }] })],
  ['credentials maskClaims with decode', creds({ files: [{ path: '/t', mode: 'deny', decode: 'jwt', maskClaims: ['sub'] }] })],
  ['credentials extract without group', creds({ files: [{ path: '/t', mode: 'deny', extract: 'abc' }] })],
  ['credentials extract with named group', creds({ files: [{ path: '/t', mode: 'deny', extract: '(?<v>.+)' }] })],
  ['credentials awsPairs on deny vars', creds({ envVars: [{ name: 'K', mode: 'deny' }, { name: 'S', mode: 'deny' }], awsPairs: [{ accessKeyIdVar: 'K', secretAccessKeyVar: 'S' }] })],
  ['credentials awsPairs on mask vars', creds({ envVars: [{ name: 'K', mode: 'mask' }, { name: 'S', mode: 'mask' }], awsPairs: [{ accessKeyIdVar: 'K', secretAccessKeyVar: 'S' }], allowPlaintextInject: true })],
  ['credentials awsPairs twice the same var', creds({ awsPairs: [{ accessKeyIdVar: 'K', secretAccessKeyVar: 'K' }] })],
  ['credentials awsPairs empty', creds({ awsPairs: [] })],
  ['credentials removed injectHosts key', creds({ injectHosts: [] })],
  ['credentials sigv4 all', creds({ sigv4: { streaming: 'deny', presigned: 'passthrough', sigv4a: 'deny' } })],
  ['credentials awsPairs unknown key', creds({ awsPairs: [{ accessKeyIdVar: 'K', secretAccessKeyVar: 'S', x: 1 }] })],
  ['credentials sigv4 unknown key', creds({ sigv4: { x: 'deny' } })],
  ['windows range width 65', { ...b(), windows: { proxyPortRange: [1, 66] } }],
  ['windows range lo > hi', { ...b(), windows: { proxyPortRange: [11, 10] } }],
  ['mitmProxy and tlsTerminate', withNet({ mitmProxy: { socketPath: '/s', domains: ['a.example.com'] }, tlsTerminate: {} })],
  ['deniedDomainReasons for an entry', withNet({ deniedDomains: ['a.example.com'], deniedDomainReasons: { 'a.example.com': 'no' } })],
];
for (const [change, settings] of hand) add(change, settings);

if (flag === '--files') {
  fs.mkdirSync(outdir, { recursive: true });
  const index = [];
  out.forEach((o, i) => {
    const name = `s${String(i).padStart(4, '0')}`;
    fs.writeFileSync(`${outdir}/${name}.json`, JSON.stringify(o.settings) + '\n');
    index.push(JSON.stringify({ name, change: o.change, expect: o.expect, issues: o.issues }));
  });
  fs.writeFileSync(`${outdir}/index.jsonl`, index.join('\n') + '\n');
} else {
  for (const o of out) console.log(JSON.stringify(o));
}
