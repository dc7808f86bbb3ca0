import type { INestApplication } from '@nestjs/common';
import { io, type Socket } from 'socket.io-client';
import WebSocket from 'ws';

/** What a gateway sent back for one message: its reply event, or its `exception` event. */
export type GatewayAnswer = { event: 'reply' | 'exception'; data: unknown };

/** A real client of one WebSocket adapter, sending one message at a time and waiting (bounded) for the answer. */
export interface GatewayClient {
  request(event: string, data: unknown): Promise<GatewayAnswer>;
  close(): void;
}

const ANSWER_TIMEOUT_MS = 3000;

function bounded<T>(what: string, start: (resolve: (value: T) => void) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`No answer to ${what} within ${ANSWER_TIMEOUT_MS} ms`)), ANSWER_TIMEOUT_MS);
    start((value) => {
      clearTimeout(timer);
      resolve(value);
    });
  });
}

/** A `ws` client: frames are `{ event, data }` JSON both ways (Nest's WsAdapter protocol). */
export async function wsClient(app: INestApplication): Promise<GatewayClient> {
  const url = (await app.getUrl()).replace(/^http/, 'ws').replace('[::1]', '127.0.0.1');
  const socket = new WebSocket(url);
  await bounded<void>('the ws connection', (done) => socket.once('open', () => done()));
  return {
    request: (event, data) =>
      bounded(event, (done) => {
        socket.once('message', (raw) => done(JSON.parse(String(raw)) as GatewayAnswer));
        socket.send(JSON.stringify({ event, data }));
      }),
    close: () => socket.close(),
  };
}

/** A socket.io client over the websocket transport. */
export async function socketIoClient(app: INestApplication): Promise<GatewayClient> {
  const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  const socket: Socket = io(url, { transports: ['websocket'], reconnection: false });
  await bounded<void>('the socket.io connection', (done) => socket.once('connect', () => done()));
  return {
    request: (event, data) =>
      bounded(event, (done) => {
        const onReply = (payload: unknown) => finish({ event: 'reply', data: payload });
        const onException = (payload: unknown) => finish({ event: 'exception', data: payload });
        const finish = (answer: GatewayAnswer) => {
          socket.off('reply', onReply);
          socket.off('exception', onException);
          done(answer);
        };
        socket.on('reply', onReply);
        socket.on('exception', onException);
        socket.emit(event, data);
      }),
    close: () => socket.close(),
  };
}
