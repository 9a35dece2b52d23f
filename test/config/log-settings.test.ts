import { Writable } from 'node:stream';
import test from 'ava';
import { ConfigError } from '../../config/env.js';
import { createLogger, logSettingsFromEnv } from '../../infra/log.js';

test('by default the commands print text at info', (t) => {
  t.deepEqual(logSettingsFromEnv({}), { format: 'text', level: 'info' });
  t.deepEqual(logSettingsFromEnv({ MVE_LOG_FORMAT: '', MVE_LOG_LEVEL: ' ' }), { format: 'text', level: 'info' });
});

test('MVE_LOG_FORMAT and MVE_LOG_LEVEL are read in either case', (t) => {
  t.deepEqual(logSettingsFromEnv({ MVE_LOG_FORMAT: 'JSON', MVE_LOG_LEVEL: 'Debug' }), {
    format: 'json',
    level: 'debug',
  });
});

test('a bad value stops start-up, naming the variable and the values it takes', (t) => {
  const format = t.throws(() => logSettingsFromEnv({ MVE_LOG_FORMAT: 'logfmt' }), { instanceOf: ConfigError });
  t.is(format.message, 'MVE_LOG_FORMAT: "logfmt" is not one of text, json');
  const both = t.throws(() => logSettingsFromEnv({ MVE_LOG_FORMAT: 'xml', MVE_LOG_LEVEL: 'verbose' }));
  t.is(
    both.message,
    'MVE_LOG_FORMAT: "xml" is not one of text, json; MVE_LOG_LEVEL: "verbose" is not one of debug, info, warn, error',
  );
});

test('text: the lines below the level are left out, and a line shows the fields its message does not say', (t) => {
  let printed = '';
  const textStream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      printed += chunk.toString();
      done();
    },
  });
  const logger = createLogger({ service: 'worker', settings: { format: 'text', level: 'info' }, textStream });
  logger.line('worker polling mve-orders.staging on 127.0.0.1:7233');
  logger.debug('ordering API validate: 200', { orderId: 'CHG-1.0123456789' });
  logger.info('order CHG-1.0123456789 refused by lookUpLocation: no such metro', {
    orderId: 'CHG-1.0123456789',
    activity: 'lookUpLocation',
    runId: 'run 1',
  });
  logger.info('ordering API buy: 503', { orderId: 'CHG-2.0123456789', status: 503, traceId: 'trace-1', ms: 12 });
  t.is(
    printed,
    [
      'worker polling mve-orders.staging on 127.0.0.1:7233',
      'order CHG-1.0123456789 refused by lookUpLocation: no such metro runId="run 1"',
      'ordering API buy: 503 orderId=CHG-2.0123456789 status=503 traceId=trace-1 ms=12',
      '',
    ].join('\n'),
  );
});
