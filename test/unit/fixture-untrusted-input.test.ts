// The pure checks behind fixture files as untrusted input: which paths stay inside the fixture's
// folder, and where a key given twice in a JSON or YAML document is.
import test from 'ava';
import { LineCounter, parseDocument } from 'yaml';
import {
  describeDuplicate,
  findDuplicateJsonKey,
  findDuplicateKey,
} from '../../cli/duplicate-keys.js';
import { fixturePathProblem } from '../../shared/fixture-path.js';

test('paths inside the fixture folder pass; absolute, climbing and folder paths do not', (t) => {
  for (const fine of [
    'faq.md',
    'docs/faq.md',
    './docs/faq.md',
    'docs/../faq.md',
    'a/b/../../c.md',
  ]) {
    t.is(fixturePathProblem(fine), undefined, fine);
  }
  const refused: [string, RegExp][] = [
    ['/etc/passwd', /is an absolute path/],
    ['\\\\server\\share\\x.md', /is an absolute path/],
    ['C:\\Users\\me\\x.md', /is an absolute path/],
    ['../x.md', /leads out of the fixture file's folder/],
    ['docs/../../x.md', /leads out/],
    ['docs\\..\\..\\x.md', /leads out/],
    ['a/..', /names the fixture's folder itself/],
    ['.', /names the fixture's folder itself/],
    ['faq.md\0.txt', /NUL/],
  ];
  for (const [path, problem] of refused) t.regex(fixturePathProblem(path) ?? '', problem, path);
});

test('a key given twice is found with both places, at any depth, in JSON and YAML', (t) => {
  const json = findDuplicateJsonKey('{"a": {"b": [1, {"c": 1,\n  "c": 2}]}}');
  t.deepEqual(json, {
    path: 'a.b[1].c',
    first: { line: 1, col: 18 },
    second: { line: 2, col: 3 },
  });
  t.regex(
    describeDuplicate(json!),
    /^a\.b\[1\]\.c is given twice \(line 1, column 18 and line 2, column 3\)/,
  );
  // Escapes decode before comparing: "\u0061" is "a".
  t.is(findDuplicateJsonKey('{"a": 1, "\\u0061": 2}')?.path, 'a');
  t.is(findDuplicateJsonKey('{"a": 1, "b": {"a": 2}}'), undefined, 'one key per object is fine');

  const lines = new LineCounter();
  const text = 'agents:\n  x: {name: A}\n  y: {name: B}\n  x: {name: C}\n';
  const yaml = findDuplicateKey(
    parseDocument(text, { uniqueKeys: false, lineCounter: lines }),
    lines,
  );
  t.deepEqual(yaml, { path: 'agents.x', first: { line: 2, col: 3 }, second: { line: 4, col: 3 } });
});
