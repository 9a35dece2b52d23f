/** `warn`: something the user must see (unimplemented, internal errors); `info`: the server's story. */
export type LogLevel = 'info' | 'warn';
