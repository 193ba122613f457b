// Which uses of `secrets` an expression may make. A secret can be used only whole: an
// interpolation whose whole expression is `secrets.NAME`. Anything else computes on the value
// (an index, a member such as .length, a comparison, arithmetic or `+`, a filter, a call, an
// object or array holding it) or reaches all of them (`secrets` alone, `this`), and what it
// produces is not the value, so masking cannot recognise it: `{{secrets.K[0]}}` stored "S", and
// one run per character read the whole secret (issue 38). Decided on the expression library's
// parsed form (its AST), so spacing, brackets and nesting make no difference.

import { isReservedSecretName, reservedSecretNameProblem } from '../../shared/secret-names.js';

/** A node of angular-expressions' AST (ESTree-like: Program, MemberExpression, Identifier...). */
export interface ExpressionNode {
  type: string;
  [key: string]: unknown;
}

/** What the refusal tells the user to do instead. */
export const WHOLE_SECRET_RULE =
  'A secret can be used only whole: write {{secrets.NAME}} with nothing else between the braces ' +
  '(no index, member such as .length, comparison, operator, filter, function call or object ' +
  'around it; `secrets` alone and `this` are refused). Text around the braces is fine: ' +
  '"Bearer {{secrets.NAME}}".';

/** `secrets.NAME`'s NAME when the whole expression is exactly that; undefined otherwise. */
export function wholeSecretName(ast: ExpressionNode): string | undefined {
  const body = ast.type === 'Program' ? (ast.body as ExpressionNode[]) : [];
  if (body.length !== 1 || body[0]!.type !== 'ExpressionStatement') return undefined;
  return secretMember(body[0]!.expression as ExpressionNode);
}

/**
 * `secrets["NAME"]`'s NAME when that is the whole expression. Refused all the same, with a hint:
 * secret names are identifiers, so `secrets.NAME` always works, and one accepted form is simpler
 * to check and to document.
 */
function bracketedSecretName(ast: ExpressionNode): string | undefined {
  const body = ast.body as ExpressionNode[];
  const node = body.length === 1 ? (body[0]!.expression as ExpressionNode | undefined) : undefined;
  if (node?.type !== 'MemberExpression' || !node.computed) return undefined;
  const object = node.object as ExpressionNode;
  const property = node.property as ExpressionNode;
  return object.type === 'Identifier' &&
    object.name === 'secrets' &&
    property.type === 'Literal' &&
    typeof property.value === 'string'
    ? property.value
    : undefined;
}

/** `secrets.NAME` (not computed) as NAME. */
function secretMember(node: ExpressionNode): string | undefined {
  if (node.type !== 'MemberExpression' || node.computed) return undefined;
  const object = node.object as ExpressionNode;
  const property = node.property as ExpressionNode;
  return object.type === 'Identifier' && object.name === 'secrets'
    ? (property.name as string)
    : undefined;
}

/**
 * Why the expression's use of secrets is refused; undefined when it makes none or uses one
 * whole. `allowWhole` false (a condition) refuses any use at all.
 */
export function secretUseProblem(ast: ExpressionNode, allowWhole = true): string | undefined {
  const whole = wholeSecretName(ast);
  if (whole !== undefined) {
    if (!allowWhole)
      return `conditions cannot read secrets (secrets.${whole}): a branch taken on a secret's value would tell it.`;
    return isReservedSecretName(whole) ? `${reservedSecretNameProblem(whole)}.` : undefined;
  }
  const found = findSecretUse(ast, undefined, new Set());
  if (!found) return undefined;
  if (!allowWhole)
    return `conditions cannot read secrets (${found}): a branch taken on a secret's value would tell it.`;
  const bracketed = bracketedSecretName(ast);
  if (bracketed !== undefined)
    return `write secrets.${bracketed}, not secrets["${bracketed}"]. ${WHOLE_SECRET_RULE}`;
  return `it uses ${found} other than whole. ${WHOLE_SECRET_RULE}`;
}

/**
 * The first reference to the scope's `secrets` (or `this`, the scope itself) in the tree, described.
 * Names that are not references are skipped: a member name (`a.secrets`) and an object key
 * (`{secrets: 1}`). `seen` guards against the compiler's annotations (toWatch) pointing back.
 */
function findSecretUse(
  node: ExpressionNode,
  parent: ExpressionNode | undefined,
  seen: Set<ExpressionNode>,
): string | undefined {
  if (seen.has(node)) return undefined;
  seen.add(node);
  if (node.type === 'ThisExpression') return "'this' (which holds the secrets)";
  if (node.type === 'Identifier' && node.name === 'secrets') return describe(node, parent);
  // for...in without the arrays Object.entries makes: this walk runs on every expression
  // compiled, and cost more than compiling did (1-2 µs a node on a loaded machine).
  for (const key in node) {
    if (key === 'toWatch') continue;
    if (key === 'property' && node.type === 'MemberExpression' && !node.computed) continue;
    if (key === 'key' && node.type === 'Property' && !node.computed) continue;
    const value = node[key];
    const found = Array.isArray(value)
      ? firstSecretUse(value, node, seen)
      : isNode(value)
        ? findSecretUse(value, node, seen)
        : undefined;
    if (found) return found;
  }
  return undefined;
}

function firstSecretUse(
  values: unknown[],
  parent: ExpressionNode,
  seen: Set<ExpressionNode>,
): string | undefined {
  for (const value of values) {
    const found = isNode(value) ? findSecretUse(value, parent, seen) : undefined;
    if (found) return found;
  }
  return undefined;
}

/** Which secret the reference `node` (the identifier `secrets`) reads, from its parent. */
function describe(node: ExpressionNode, parent: ExpressionNode | undefined): string {
  if (parent?.type === 'MemberExpression' && parent.object === node) {
    const name = secretMember(parent);
    if (name !== undefined) return `secrets.${name}`;
    const property = parent.property as ExpressionNode;
    if (property.type === 'Literal' && typeof property.value === 'string')
      return `secrets["${property.value}"]`;
  }
  return "'secrets' itself";
}

function isNode(value: unknown): value is ExpressionNode {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { type?: unknown }).type === 'string'
  );
}
