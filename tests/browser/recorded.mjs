// SPDX-License-Identifier: GPL-2.0-or-later
// A real recording on and off the CPU (tests/workloads/blocking) in Chromium:
// blocking frames are off-CPU blue, spinning warm, and the tooltip of a frame
// with both gives both times. By default a wait another thread of the stream
// ended is one frame naming it; with "all" (lp-svg --waits all), its stack.
//
//   node recorded.mjs FILE [all] [NAMES]
//
// NAMES (comma-separated, default do_read,wait_lock,reap): the waiting
// functions the stream has no other weight in (a sample on the CPU, a
// preemption), which by default must not be drawn at all.
import { open, frames, byText, shot, check, scenario } from './lib.mjs';

const [file, waits, only] = process.argv.slice(2);
const rgb = (hex) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
await scenario(async () => {
	const { browser, page, errors } = await open(file);
	check(errors.length === 0, 'no errors: ' + errors);
	const fs = await frames(page);
	// explained: the pipe the main thread wrote, the lock locker let go, the child that exited
	const shown = waits === 'all' ? ['do_read', 'wait_lock', 'nap', 'reap'] : ['nap', '[waiting for locker]', '[waiting for blocking]'];
	const named = (name) => fs.filter((f) => f.name === name);
	if (waits !== 'all') {
		for (const name of (only ?? 'do_read,wait_lock,reap').split(',').filter(Boolean))
			check(!named(name).length, name + ' (a wait another thread ended) is not drawn by its stack');
		const waiter = named('waiter')[0], lockWait = named('[waiting for locker]');
		check(lockWait.some((f) => f.y < waiter.y && Math.abs(f.x - waiter.x) < 1),
			'the waiter\'s wait is one frame on its thread: ' + JSON.stringify(lockWait) + ' over ' + JSON.stringify(waiter));
		const sub = await page.$eval('#subtitle', (e) => e.textContent);
		check(/\[waiting for NAME\].*--waits all/.test(sub), 'the subtitle says so: ' + sub);
	}
	for (const name of shown) {
		const f = named(name)[0];
		check(f, name + ' is drawn, among ' + fs.length + ' frames: ' + fs.map((g) => g.text).join(' '));
		const [r, , b] = rgb(f.fill);
		// a sample or two on the CPU (waking up) tints it: mostly blue
		check(b > 200 && r < 120, name + ' (off the CPU) is blue: ' + f.fill);
	}
	const spinFrame = fs.find((f) => f.text.startsWith('spin'));
	const spin = rgb(spinFrame.fill);
	// waiting to run (state R) tints it: as much as the stream says it waited, which other work on
	// the machine decides; its tooltip's times are the stream's
	await page.hover(`#frames > g[data-i="${spinFrame.i}"] rect`);
	const spinTimes = await page.$eval('#details', (e) => e.textContent);
	const ms = (re) => { const m = re.exec(spinTimes); return m ? parseFloat(m[1]) * (m[2] === 's' ? 1000 : 1) : NaN; };
	const on = ms(/on-CPU ([0-9.]+) (ms|s)/), off = ms(/off-CPU ([0-9.]+) (ms|s)/) || 0;
	check(on > 0, 'spin has on-CPU time: ' + spinTimes);
	if (off < 0.1 * (on + off))
		check(spin[0] > 150 && spin[2] < 100 && spin[0] > 2 * spin[2], 'spin (on the CPU) is warm: ' + spin + ', ' + spinTimes);
	else if (off < on)
		check(spin[0] > spin[2], 'spin (mostly on the CPU) is warmer than blue: ' + spin + ', ' + spinTimes);
	const main = byText(fs, 'main')[0];
	await page.hover(`#frames > g[data-i="${main.i}"] rect`);
	const details = await page.$eval('#details', (e) => e.textContent);
	check(/on-CPU [0-9.]+ ms, off-CPU [0-9.]+ (ms|s)/.test(details), 'tooltip has both times: ' + details);
	await shot(page, waits === 'all' ? 'recorded-onoff-all' : 'recorded-onoff');
	check(errors.length === 0, 'no errors: ' + errors);
	await browser.close();
});
