export { parseSshPublicKey } from './ssh.js';
export type { SshKeyAlgorithm, SshParseResult, SshPublicKey } from './ssh.js';
export { bcryptProblem, sha256CryptProblem, sha512CryptProblem } from './crypt.js';
export { base64Problem, hexProblem, uuidV4Problem } from './encoding.js';
export type { HexCase } from './encoding.js';
export { hostProblem, httpUrlProblem, isEmail, isFqdn, isHost, uriProblem } from './host.js';
export type { HostKind } from './host.js';
export { characterCount, forbiddenCharacterProblem, hasControlCharacters, lengthProblem } from './text.js';
