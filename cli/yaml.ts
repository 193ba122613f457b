// The parts of the yaml package the CLI loads only when a command needs them. Commands import()
// this module rather than 'yaml' itself: yaml is CommonJS, and in the bundle (scripts/bundle.mjs)
// an import() of a CommonJS package would give its default export alone.
export { LineCounter, parseDocument, stringify } from 'yaml';
