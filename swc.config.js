// swc settings shared by Jest and scripts/register-ts.js. Nest's DI needs legacy decorators with metadata, and
// keepClassNames keeps class names for DI errors and context.getClass().name.
module.exports = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true },
    target: 'es2022',
    keepClassNames: true,
  },
  module: { type: 'commonjs' },
  sourceMaps: 'inline',
};
