import { open, frames } from './lib.mjs';
const [file, shot] = process.argv.slice(2);
const { browser, page, errors, loadMs } = await open(file);
const f = await frames(page);
console.log('load ms', loadMs, 'frames', f.length, 'errors', errors);
await page.screenshot({ path: shot });
await browser.close();
