// SPDX-License-Identifier: GPL-2.0-or-later
// Reads lp-export's output back with real consumers and prints what a test
// compares: per-event totals as "EVENT TOTAL" lines, then what else was checked.
//   node export.mjs pprof FILE            decoded by the npm pprof-format package
//   node export.mjs speedscope FILE       validated against speedscope's own schema
//   node export.mjs speedscope-open FILE  opened in speedscope's viewer in Chromium
//   node export.mjs trace FILE            checked against the Trace Event format
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { Profile } from 'pprof-format';
import Ajv from 'ajv';
import { shot, check } from './lib.mjs';

const require = createRequire(import.meta.url);
const [mode, file] = process.argv.slice(2);

function pprof() {
	const p = Profile.decode(gunzipSync(readFileSync(file)));
	const str = (i) => p.stringTable.strings[Number(i)];
	check(str(0) === '', 'string 0 is ""');
	const types = p.sampleType.map((t) => str(t.type));
	const totals = types.map(() => 0n);
	const labels = new Set();
	const locations = new Map(p.location.map((l) => [String(l.id), l]));
	const functions = new Map(p.function.map((f) => [String(f.id), f]));
	const mappings = new Map(p.mapping.map((m) => [String(m.id), m]));
	for (const s of p.sample) {
		check(s.value.length === types.length, 'a value per sample type');
		s.value.forEach((v, i) => { totals[i] += BigInt(v); });
		for (const l of s.label)
			labels.add(str(l.key));
		for (const id of s.locationId) {
			const loc = locations.get(String(id));
			check(loc, `location ${id} exists`);
			check(functions.get(String(loc.line[0].functionId)), `function of location ${id} exists`);
			if (Number(loc.mappingId)) {
				const m = mappings.get(String(loc.mappingId));
				check(m && loc.address >= m.memoryStart && loc.address < m.memoryLimit,
					`location ${id} lies in its mapping`);
			}
		}
	}
	types.forEach((t, i) => console.log(`${t} ${totals[i]} ${str(p.sampleType[i].unit)}`));
	console.log('labels ' + [...labels].sort().join(','));
	console.log('default ' + (str(p.defaultSampleType) || '-'));
	console.log('period ' + (p.periodType ? str(p.periodType.type) + ' ' + str(p.periodType.unit) + ' ' + p.period : '-'));
}

function speedscopeSchema() {
	const schema = JSON.parse(readFileSync(require.resolve('speedscope/dist/release/file-format-schema.json')));
	const doc = JSON.parse(readFileSync(file, 'utf8'));
	const ajv = new Ajv({ allErrors: true, strict: false });
	const validate = ajv.compile(schema);
	if (!validate(doc))
		throw new Error('not valid speedscope: ' + ajv.errorsText(validate.errors).slice(0, 2000));
	const nframes = doc.shared.frames.length;
	for (const p of doc.profiles) {
		if (p.type === 'sampled') {
			check(p.samples.length === p.weights.length, 'a weight per sample');
			const total = p.weights.reduce((a, b) => a + b, 0);
			check(total === p.endValue - p.startValue, `${p.name}: endValue is the total`);
			for (const s of p.samples)
				check(s.every((f) => f >= 0 && f < nframes), 'frames exist');
			console.log(`sampled ${p.name} ${total} ${p.unit}`);
			continue;
		}
		// evented: times never go back, every close matches the innermost open frame
		const open = [];
		let last = p.startValue, onTime = 0, since = 0;
		for (const e of p.events) {
			check(e.at >= last, `${p.name}: events in time order`);
			if (open.length)
				onTime += e.at - since;
			since = e.at;
			last = e.at;
			if (e.type === 'O')
				open.push(e.frame);
			else
				check(open.pop() === e.frame, `${p.name}: close matches open`);
		}
		check(open.length === 0, `${p.name}: every frame closed`);
		check(last <= p.endValue, `${p.name}: endValue after the last event`);
		console.log(`evented ${p.name} ${onTime}`);
	}
}

async function speedscopeOpen() {
	const browser = await chromium.launch({
		executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
		args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
	});
	try {
		const page = await browser.newPage({ viewport: { width: 1300, height: 800 } });
		const errors = [];
		page.on('pageerror', (e) => errors.push(String(e)));
		await page.goto(pathToFileURL(require.resolve('speedscope/dist/release/index.html')).href);
		// speedscope's own "Browse" button: a file input
		await page.setInputFiles('input[type=file]', file);
		// its profile selector names the open profile once the file is read
		await page.waitForFunction(() => /\((\d+)\/(\d+)\)/.test(document.body.innerText), null, { timeout: 30000 });
		const text = await page.evaluate(() => document.body.innerText);
		await shot(page, 'speedscope-' + (process.env.SHOT_NAME || 'export'));
		// 'n' to the first thread's on-CPU profile: evented, in time order
		const [, count] = text.match(/\(\d+\/(\d+)\)/);
		let title = '';
		for (let i = 1; i < +count && !/\d+\/\d+ \(/.test(title); i++) {
			await page.keyboard.press('n');
			title = await page.evaluate(() => document.body.innerText.split('\n').find((l) => /\(\d+\/\d+\)/.test(l)));
		}
		check(/\d+\/\d+ \(/.test(title), `'n' reaches a thread's profile (${title})`);
		await shot(page, 'speedscope-' + (process.env.SHOT_NAME || 'export') + '-thread');
		check(errors.length === 0, 'no page errors: ' + errors.join('; '));
		check(!/error|could not/i.test(text), 'speedscope reports no error: ' + text.slice(0, 300));
		console.log('opened ' + text.match(/\((\d+\/\d+)\)/)[1]);
	} finally {
		await browser.close();
	}
}

function trace() {
	const doc = JSON.parse(readFileSync(file, 'utf8'));
	check(Array.isArray(doc.traceEvents), 'traceEvents is an array');
	const last = new Map(), begun = new Map(), named = new Set();
	const totals = new Map();
	let instants = 0;
	for (const e of doc.traceEvents) {
		check(typeof e.ph === 'string' && Number.isInteger(e.pid) && Number.isInteger(e.tid), 'ph, pid, tid');
		const track = `${e.pid}/${e.tid}`;
		if (e.ph === 'M') {
			check(['thread_name', 'process_name'].includes(e.name) && typeof e.args.name === 'string',
				'metadata names a thread or process');
			named.add(track);
			continue;
		}
		check(typeof e.ts === 'number' && e.ts >= 0, 'ts');
		check(named.has(track), `track ${track} named before its events`);
		// slices of one track come in time order and never overlap; an instant may fall inside one.
		// In whole nanoseconds: microseconds with three decimals do not add up exactly as floats.
		const ns = (us) => Math.round(us * 1000);
		const [start, end] = last.get(track) ?? [0, 0];
		if (e.ph === 'X') {
			check(ns(e.ts) >= end, `track ${track}: slice at ${e.ts} before the last one ended, ${end / 1000}`);
			check(typeof e.dur === 'number' && e.dur >= 0, 'dur');
			last.set(track, [ns(e.ts), ns(e.ts) + ns(e.dur)]);
			const key = e.cat;
			totals.set(key, (totals.get(key) ?? 0) + (e.cat === 'on-CPU' ? e.args.weight_ns : e.args.weight));
		} else if (e.ph === 'B') {
			begun.set(track, (begun.get(track) ?? 0) + 1);
		} else if (e.ph === 'E') {
			check(begun.get(track) > 0, `${track}: every E has its B`);
			begun.set(track, begun.get(track) - 1);
		} else {
			check(e.ph === 'i' && e.s === 't', 'instant events are thread-scoped');
			check(ns(e.ts) >= start, `track ${track}: instant at ${e.ts} before the last slice, ${start / 1000}`);
			instants++;
		}
	}
	for (const [track, n] of begun)
		check(n === 0, `${track}: every B has its E`);
	for (const [k, v] of totals)
		console.log(`${k} ${v}`);
	console.log(`instants ${instants}`);
	console.log(`tracks ${named.size}`);
}

const modes = { pprof, speedscope: speedscopeSchema, 'speedscope-open': speedscopeOpen, trace };
if (!modes[mode]) {
	console.error('usage: node export.mjs pprof|speedscope|speedscope-open|trace FILE');
	process.exit(2);
}
await modes[mode]();
