// Generates tests/data/jsregex.jsonl: regular expressions as the reference reads a
// credentials extract (new RegExp(text), no flags), with node's verdict and number of
// capturing groups (test data; no reference code here). Run with the node the reference
// runs on:  node tests/data/gen-jsregex.mjs > tests/data/jsregex.jsonl
const hand = [
  '', 'a', '(a)', '(?:a)', '(?<n>a)', '(a)(b)', '((a))', '(?=a)', '(?!a)', '(?<=a)', '(?<!a)',
  '(?=a)*', '(?!a)+', '(?<=a)*', '(?<!a)?', '^*', '$+', '\\b*', '\\B?', 'a**', 'a*+', 'a+?',
  'a??', 'a*?*', '*', '+a', '?', 'a|*', '(*)', 'a{2}', 'a{2,}', 'a{2,3}', 'a{3,2}', '{2}',
  '{', '}', 'a{', 'a{,3}', 'a{2,3', 'a{x}', 'x{2}{3}', 'x{2}?', 'x{2}??', ']', '[', '[]',
  '[^]', '[a-z]', '[z-a]', '[a-]', '[-a]', '[\\d-z]', '[a-\\d]', '[\\w-\\d]', '[\\b]',
  '[\\B]', '[\\-]', '[\\c1]', '[\\c_]', '[\\c]', '\\c', '\\ca', '\\c1', '\\', 'a\\', '(',
  ')', '(a', 'a)', '(a))', '((a)', '(?', '(?a)', '(?i:a)', '(?<)', '(?<1a>x)', '(?<a1>x)',
  '(?<$_>x)', '(?<a>x)(?<a>y)', '(?<a>x)\\k<a>', '\\k<a>(?<a>x)', '(?<a>x)\\k<b>',
  '(?<a>x)\\k', '\\k', '\\k<a>', '(?<a>x)[\\k]', '[\\k]', '\\1', '(a)\\1', '\\8', '\\9',
  '[\\8]', '\\0', '\\00', '\\012', '[\\7-\\1]', '[\\1-\\7]', '\\x4', '\\x41', '\\u00',
  '\\u0041', '\\u{41}', '[\\u0041-\\u0040]', '[\\x41-\\x40]', '[é-a]', '[a-é]', '😀',
  '[😀]', '[😀-a]', '(?<é>x)', '(?<\\u0061>x)\\k<a>', '(?<a>x)|(?<b>y)', 'a{99999999999}',
  'a{2,99999999999}', 'a{99999999999,2}', '(?:)', '()', '(|)', '|', 'a|', '(?<=a)+',
  '(?=)', 'token:\\s*(\\S+)', '"password":\\s*"([^"]+)"', '(?<tok>[A-Za-z0-9]{20,})',
  'machine\\s+\\S+\\s+login\\s+\\S+\\s+password\\s+(\\S+)', '\\/(.*)', '[\\]]', '[\\[]',
  '[[]', '[]]', '\\p{L}', '(?<a>.)\\k<a', '(?<a>.)\\k<a>b', 'a{,}', 'a{1,2}{3}',
  '\\d{2,1}', '[a-\\n]', '[\\n-a]', '[\\t-\\n]', '\\cJ', '(?:a)?', '(?<n>)', '(?<n>)+',
  '\\b{2}', '(?!)*', 'x(?=y){2}', '^{', '${2}', '(?<a>x)(?:\\k<a>)', '[\\s-\\w]',
];
let seed = 12345;
const rnd = n => { seed = (Math.imul(seed, 1103515245) + 12345) >>> 0; return (seed >>> 8) % n; };
const alpha = ['a', 'b', '(', ')', '[', ']', '{', '}', '*', '+', '?', '|', '^', '$', '\\', '-',
  ',', '1', '2', '0', ':', '=', '!', '<', '>', 'k', 'd', 'c', 'u', 'x', '.', 'é'];
const rand = [];
for (let i = 0; i < 1500; i++) {
  let s = '';
  const len = 1 + rnd(10);
  for (let k = 0; k < len; k++) s += alpha[rnd(alpha.length)];
  rand.push(s);
}
const seen = new Set();
for (const p of [...hand, ...rand]) {
  if (seen.has(p)) continue;
  seen.add(p);
  let verdict = 'valid', groups = 0;
  try {
    const re = new RegExp(p);
    groups = new RegExp(re.source + '|').exec('').length - 1;
  } catch { verdict = 'invalid'; }
  console.log(JSON.stringify({ pattern: p, expect: verdict, groups }));
}
