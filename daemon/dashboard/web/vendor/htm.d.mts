// The types of the file scripts/build-ui.mjs copies here from node_modules (for the type-check).
export { default } from 'htm';
