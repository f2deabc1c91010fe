import { x } from './x';
import y = require("y");
export interface Foo { a(): void; b: string }
export class Bar<T> extends Baz implements Foo {
  private q = 1;
  constructor(a: number) { super(); }
  async get(key: string): Promise<T> { return null as any; }
}
export const handler = async (req: Req) => { };
export function f(a: number): number { return a }
type Alias = string | number;
enum E { A, B }
namespace NS { export function g() {} }
