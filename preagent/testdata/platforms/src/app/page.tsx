// The home page: one table per platform.
import { platforms } from "../data/platform";
import { formatPrice } from "../lib/format";

export default function Home() {
  return (
    <main>
      {Object.values(platforms).map((p) => (
        <section key={p.id}>
          <h2>{p.name}</h2>
          <table>
            <tbody>
              {p.models.map((m) => (
                <tr key={m.id}>
                  <td>{m.name}</td>
                  <td>{formatPrice(m.input)}</td>
                  <td>{formatPrice(m.output)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      ))}
    </main>
  );
}
