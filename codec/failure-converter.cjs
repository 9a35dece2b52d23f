// Loaded by path (DataConverter.failureConverterPath): the SDK require()s it in the worker and clients and
// bundles it into the workflow sandbox. Plain CommonJS so that require() works in every process, including
// ones that load TypeScript through an ESM-only hook. Encoding the common attributes moves failure
// messages and stack traces into a payload, which the payload codec then encrypts.
const { DefaultFailureConverter } = require('@temporalio/common');

exports.failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
