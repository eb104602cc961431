/**
 * Status class changes: the answer keeps its body and headers, its status moves to another class
 * (or to a neighbour within one: 400 → 401, 201 → 200). On the delivery side this is the target
 * misreading the destination's answer: a 500 taken for success, a 200 taken for a failure.
 */
import type { ResponseMessage } from '../exchange.ts';
import type { Operator } from '../operator.ts';

function statusOperator(id: string, what: string, from: (status: number) => boolean, to: number): Operator {
  return {
    id: `status.${id}`,
    family: 'status',
    sides: ['front', 'delivery'],
    what,
    response(response): ResponseMessage | undefined {
      if (!from(response.status) || response.status === to) return undefined;
      return { ...response, status: to };
    },
  };
}

const is2xx = (status: number) => status >= 200 && status < 300;
const is4xx = (status: number) => status >= 400 && status < 500;

export const statusOperators: readonly Operator[] = [
  statusOperator('2xx-to-400', 'a success answered 400', is2xx, 400),
  statusOperator('2xx-to-500', 'a success answered 500', is2xx, 500),
  statusOperator('4xx-to-200', 'a client error answered 200', is4xx, 200),
  statusOperator('5xx-to-200', 'a server error answered 200', (status) => status >= 500, 200),
  statusOperator('400-to-401', '400 answered 401', (status) => status === 400, 401),
  statusOperator('400-to-500', '400 answered 500', (status) => status === 400, 500),
  statusOperator('401-to-403', '401 answered 403', (status) => status === 401, 403),
  statusOperator('201-to-200', '201 answered 200', (status) => status === 201, 200),
  statusOperator('200-to-201', '200 answered 201', (status) => status === 200, 201),
];
