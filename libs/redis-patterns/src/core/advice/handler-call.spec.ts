import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host.js';
import { requestOf } from './handler-call';

// One convention for every decorator's key functions on a handler (docs/decorator-mechanism.md): what each context
// hands them first.
describe('requestOf', () => {
  const graphql = (gqlContext: unknown) => {
    const context = new ExecutionContextHost([{}, {}, gqlContext, {}]);
    context.setType('graphql');
    return context;
  };

  it('gives the GraphQL HTTP request on Apollo (req), on Mercurius (reply.request), else the GraphQL context', () => {
    const request = { headers: {} };
    expect(requestOf(graphql({ req: request }))).toBe(request);
    expect(requestOf(graphql({ reply: { request } }))).toBe(request);
    const bare = { user: 'ann' };
    expect(requestOf(graphql(bare))).toBe(bare);
  });

  it('gives the payload on RPC and the client on WebSocket', () => {
    const payload = { id: 1 };
    const rpc = new ExecutionContextHost([payload, {}]);
    rpc.setType('rpc');
    expect(requestOf(rpc)).toBe(payload);
    const client = { id: 'socket' };
    const ws = new ExecutionContextHost([client, { text: 'hi' }]);
    ws.setType('ws');
    expect(requestOf(ws)).toBe(client);
  });
});
