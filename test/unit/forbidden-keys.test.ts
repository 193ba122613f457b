// findForbiddenKey (shared/forbidden-keys.ts): where a __proto__ or constructor.prototype key is
// in a parsed document, as the refusals of the daemon (JSON bodies) and the CLI (workflow files)
// name it.
import test from 'ava';
import { parseDocument } from 'yaml';
import { findForbiddenKey, forbiddenKeyReason } from '../../shared/forbidden-keys.js';

test('a __proto__ key is found at any depth, arrays indexed', (t) => {
  t.deepEqual(findForbiddenKey(JSON.parse('{"__proto__": {}}')), {
    path: '__proto__',
    key: '__proto__',
  });
  t.deepEqual(
    findForbiddenKey(JSON.parse('{"steps": [{"id": "a"}, {"config": {"__proto__": 1}}]}')),
    { path: 'steps[1].config.__proto__', key: '__proto__' },
  );
  t.deepEqual(findForbiddenKey(JSON.parse('[[{"\\u005f_proto__": null}]]')), {
    path: '[0][0].__proto__',
    key: '__proto__',
  });
});

test('constructor is refused only when it holds a prototype key (the secure-json-parse rule)', (t) => {
  t.deepEqual(findForbiddenKey(JSON.parse('{"a": {"constructor": {"prototype": {}}}}')), {
    path: 'a.constructor',
    key: 'constructor',
  });
  t.is(findForbiddenKey(JSON.parse('{"constructor": "Ada", "b": {"constructor": {}}}')), undefined);
  t.is(findForbiddenKey({ name: 'plain', list: [1, 'two', null] }), undefined);
  t.is(findForbiddenKey('text'), undefined);
});

test('the first key in document order is named', (t) => {
  const found = findForbiddenKey(
    JSON.parse('{"a": {"b": {"__proto__": 1}}, "c": {"constructor": {"prototype": 1}}}'),
  );
  t.is(found?.path, 'a.b.__proto__');
});

test('YAML: its own __proto__ keys are found, and aliases that make a cycle end', (t) => {
  const yaml = parseDocument('steps:\n  - config:\n      __proto__:\n        x: 1\n').toJS();
  t.is(findForbiddenKey(yaml)?.path, 'steps[0].config.__proto__');
  const cyclic = parseDocument('a: &x\n  b: *x\n').toJS();
  t.is(findForbiddenKey(cyclic), undefined);
});

test('the reason names the key, why, and the fix', (t) => {
  t.is(
    forbiddenKeyReason({ path: 'a.__proto__', key: '__proto__' }),
    "the key 'a.__proto__' is refused: a __proto__ key could rewrite the prototype shared by all objects (prototype pollution). Rename or remove the key.",
  );
  t.regex(
    forbiddenKeyReason({ path: 'a.constructor', key: 'constructor' }),
    /^the key 'a\.constructor' holds a 'prototype' key, which is refused: constructor\.prototype could/,
  );
});
