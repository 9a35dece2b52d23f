/**
 * The payload codec shared by the worker and every client, so no secret is plaintext in workflow history.
 * See docs/security.md.
 */
export { AesGcmPayloadCodec, ENCRYPTED_ENCODING, KEY_ID_METADATA, PayloadDecryptionError } from './aes-gcm-codec.js';
export { refusedPayloadReason } from './refused-payload.js';
export {
  CODEC_KEYS_VARIABLE,
  CodecKeyError,
  KEY_BYTES,
  Keyring,
  keyringFromEnvironment,
  type KeyringFile,
} from './keyring.js';
export { seal, unseal } from './sealing.js';
export { DEV_KEY_FILE, loadOrCreateDevKeyring } from './dev-key.js';
export { resolveKeyring, type KeyringSource } from './resolve-keyring.js';
export { FAILURE_CONVERTER_PATH, encryptingDataConverter, workerDataConverter } from './data-converter.js';
