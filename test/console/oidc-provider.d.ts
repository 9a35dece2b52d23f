// oidc-provider ships no type declarations; the test uses it as a black box.
declare module 'oidc-provider';
