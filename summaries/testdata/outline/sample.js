const path = require('path');
import { a } from "./a.js";
export class Widget {
  render(props) {
    return null;
  }
}
export default function make(x) { return new Widget(x); }
const helper = (y) => y * 2;
