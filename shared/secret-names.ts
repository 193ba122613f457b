// Names a secret cannot have: the ones every JavaScript object answers to (Object.prototype's
// own properties) and `prototype`. `{{secrets.constructor}}` or `{{secrets.__proto__}}` read
// like a secret but name the scope object's own machinery, so they are refused where they are
// written (svc secrets set, a workflow's expressions) instead of failing once a run reaches them.
const RESERVED = new Set([
  '__proto__',
  '__defineGetter__',
  '__defineSetter__',
  '__lookupGetter__',
  '__lookupSetter__',
  'constructor',
  'hasOwnProperty',
  'isPrototypeOf',
  'propertyIsEnumerable',
  'prototype',
  'toLocaleString',
  'toString',
  'valueOf',
]);

export function isReservedSecretName(name: string): boolean {
  return RESERVED.has(name);
}

/** Why `name` cannot be a secret's name, as the refusals say it. */
export function reservedSecretNameProblem(name: string): string {
  return `'${name}' cannot name a secret: every object has a property of that name (constructor, __proto__, prototype, toString and the other names of Object.prototype are reserved). Choose another name`;
}
