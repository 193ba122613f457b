// The types of the file scripts/build-ui.mjs compiles here from shared/duration.ts.
export * from '../../../../shared/duration.js';
