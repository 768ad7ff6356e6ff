/**
 * Reading hostile pages without a selector, as Check Now does in the API process: flat pages of
 * thousands of prices, long lists, product grids, and nested blocks over a mass of elements. The
 * time should grow with the page, about linearly, and stay near a second at 3 MB. Each reading is
 * printed beside its floor: parsing the same page alone, which every reading does first.
 *
 *   bun bench/extract/hostile.ts [shape ...]
 */
import { extractPrice } from '../../api/reading/extract.ts';
import { parsePage } from '../../api/reading/page.ts';

const page = (body: string, head = '') => `<!doctype html><html lang="en"><head><title>Steel Kettle</title>${head}</head><body>${body}</body></html>`;
const times = (count: number, make: (index: number) => string) => Array.from({ length: count }, (_, index) => make(index)).join('');
const paragraphs = (count: number) => page(times(count, (i) => `<p>£${i}.99</p>`));
const tiles = (count: number) =>
  page(
    `<h1>Steel Kettle</h1><div class="grid">${times(count, (i) => `<div class="tile"><a href="/p/${i}"><h3>Kettle ${i}</h3></a><span class="price">£${i}.99</span><button class="add-to-cart">Add to cart</button></div>`)}</div>`,
  );
const stated = `<script type="application/ld+json">${JSON.stringify({ '@type': 'Product', name: 'Steel Kettle', offers: { '@type': 'Offer', price: '1.23', priceCurrency: 'GBP' } })}</script>`;
const empties = '<i></i>'.repeat(400_000);

const shapes: Record<string, () => string> = {
  '10,000 price paragraphs': () => paragraphs(10_000),
  '20,000 price paragraphs': () => paragraphs(20_000),
  '50,000 price paragraphs': () => paragraphs(50_000),
  '100,000 price paragraphs': () => paragraphs(100_000),
  '190,000 price paragraphs': () => paragraphs(190_000),
  '50,000 priced items in one list': () => page(`<ul>${times(50_000, (i) => `<li><span class=price>£${i}.99</span></li>`)}</ul>`),
  '5,000 product tiles': () => tiles(5_000),
  '20,000 product tiles': () => tiles(20_000),
  '100,000 prices in one paragraph': () => page(`<p>${times(100_000, (i) => `<span>£${i}.99</span>`)}</p>`),
  '50,000 paragraphs of their own class': () => page(times(50_000, (i) => `<p class="c${i}">£${i}.99</p>`)),
  '50,000 headings and prices': () => page(`<div>${times(50_000, (i) => `<div class="title">Kettle ${i}</div><p>£${i}.99</p>`)}</div>`),
  'a stated price under 1,000 blocks over 400,000 elements': () => page(`${'<div>'.repeat(1_000)}£1${empties}${'</div>'.repeat(1_000)}`, stated),
  '1,000 nested quotes over 400,000 elements': () => page(`${'<blockquote><span>£1</span>'.repeat(1_000)}${empties}${'</blockquote>'.repeat(1_000)}`),
  '20,000 microdata offers in one product': () =>
    page(
      `<div itemscope itemtype="https://schema.org/Product"><h1 itemprop="name">Steel Kettle</h1>${times(20_000, (i) => `<div itemprop="offers" itemscope itemtype="https://schema.org/Offer"><meta itemprop="price" content="${i}.99"><meta itemprop="priceCurrency" content="GBP"></div>`)}</div>`,
    ),
  '1,000 nested navs over 400,000 elements': () => page(`${'<nav><b>£1</b>'.repeat(1_000)}${empties}<h1>Steel Kettle</h1>${'</nav>'.repeat(1_000)}`),
};

const only = process.argv.slice(2);
// Warm, as a running server is.
for (let round = 0; round < 3; round++) extractPrice(paragraphs(2_000));
for (const [name, make] of Object.entries(shapes)) {
  if (only.length > 0 && !only.includes(name)) continue;
  const html = make();
  const median = (run: () => unknown) => {
    const ms: number[] = [];
    for (let round = 0; round < 3; round++) {
      const started = performance.now();
      run();
      ms.push(performance.now() - started);
    }
    return ms.sort((a, b) => a - b)[1]!;
  };
  const reading = median(() => extractPrice(html));
  const parsing = median(() => parsePage(html));
  const result = extractPrice(html);
  const read = result.ok ? `${result.price}` : result.code;
  console.log(
    `${name.padEnd(58)} ${(html.length / 1024 / 1024).toFixed(2).padStart(5)} MB ${reading.toFixed(0).padStart(6)} ms  (parse alone ${parsing.toFixed(0).padStart(4)} ms, ×${(reading / parsing).toFixed(1)})   ${read}`,
  );
}
