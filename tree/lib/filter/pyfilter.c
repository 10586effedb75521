/* SPDX-License-Identifier: GPL-2.0-or-later */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "filter/pyfilter.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pyfilter {
	PyObject *globals;
	PyObject *process;
};

/* Its last lines when the whole does not fit: they name the error. */
static void set_tail(struct lp_error *err, const char *text)
{
	size_t len = strlen(text), room = sizeof(err->msg) - 1;

	/* a traceback ends with a newline the message does not need */
	while (len > 0 && text[len - 1] == '\n')
		len--;
	if (len <= room) {
		lp_error__set(err, -EINVAL, "%.*s", (int)len, text);
		return;
	}
	lp_error__set(err, -EINVAL, "...%.*s", (int)(room - 3), text + len - (room - 3));
}

/* The pending Python exception as text, its traceback, into err. */
static void exception_text(struct lp_error *err)
{
	PyObject *type, *value, *tb, *module = NULL, *lines = NULL, *empty = NULL, *joined = NULL;
	char *text = NULL;

	PyErr_Fetch(&type, &value, &tb);
	PyErr_NormalizeException(&type, &value, &tb);
	module = PyImport_ImportModule("traceback");
	if (module)
		lines = PyObject_CallMethod(module, "format_exception", "OOO", type ? type : Py_None,
					    value ? value : Py_None, tb ? tb : Py_None);
	if (lines && (empty = PyUnicode_FromString("")))
		joined = PyUnicode_Join(empty, lines);
	if (joined) {
		const char *s = PyUnicode_AsUTF8(joined);

		text = s ? strdup(s) : NULL;
	}
	set_tail(err, text ? text : "Python raised an exception that could not be formatted");
	free(text);
	PyErr_Clear();
	Py_XDECREF(joined);
	Py_XDECREF(empty);
	Py_XDECREF(lines);
	Py_XDECREF(module);
	Py_XDECREF(type);
	Py_XDECREF(value);
	Py_XDECREF(tb);
}

struct pyfilter *pyfilter__load(const char *path, struct lp_error *err)
{
	struct pyfilter *p = calloc(1, sizeof(*p));
	FILE *f = NULL;
	char *source = NULL;
	size_t size = 0;
	PyObject *code = NULL, *result = NULL, *setup;

	if (!p)
		return NULL;
	f = fopen(path, "r");
	if (!f) {
		lp_error__set(err, -errno, "cannot open '%s': %s", path, strerror(errno));
		free(p);
		return NULL;
	}
	{
		FILE *mem = open_memstream(&source, &size);
		char buf[65536];
		size_t n;

		while (mem && (n = fread(buf, 1, sizeof(buf), f)) > 0)
			fwrite(buf, 1, n, mem);
		if (mem)
			fclose(mem);
	}
	fclose(f);
	if (!Py_IsInitialized())
		Py_InitializeEx(0);	/* no signal handlers: Ctrl-C stays lp-filter's */
	p->globals = PyDict_New();
	if (!p->globals || !source)
		goto fail;
	PyDict_SetItemString(p->globals, "__builtins__", PyEval_GetBuiltins());
	PyDict_SetItemString(p->globals, "__name__", PyUnicode_FromString("__lp_filter__"));
	code = Py_CompileString(source, path, Py_file_input);
	if (!code)
		goto fail;
	result = PyEval_EvalCode(code, p->globals, p->globals);
	if (!result)
		goto fail;
	Py_DECREF(result);
	setup = PyDict_GetItemString(p->globals, "setup");
	if (setup && PyCallable_Check(setup)) {
		result = PyObject_CallNoArgs(setup);
		if (!result)
			goto fail;
		Py_DECREF(result);
	}
	p->process = PyDict_GetItemString(p->globals, "process");
	if (!p->process || !PyCallable_Check(p->process)) {
		lp_error__set(err, -EINVAL, "'%s' defines no function process(callchain)", path);
		goto fail_quiet;
	}
	Py_INCREF(p->process);
	Py_DECREF(code);
	free(source);
	return p;
fail:
	exception_text(err);
fail_quiet:
	Py_XDECREF(code);
	free(source);
	pyfilter__free(p);
	return NULL;
}

void pyfilter__free(struct pyfilter *p)
{
	if (!p)
		return;
	Py_XDECREF(p->process);
	Py_XDECREF(p->globals);
	free(p);
	if (Py_IsInitialized())
		Py_FinalizeEx();
}

int pyfilter__decide(struct pyfilter *p, const struct filter_frame *frames, size_t n, bool *keep,
		     struct lp_error *err)
{
	PyObject *chain = PyTuple_New((Py_ssize_t)n), *result = NULL;
	int ret = -EINVAL;

	if (!chain)
		return -ENOMEM;
	/* leaf first, as perf's scripting does */
	for (size_t i = 0; i < n; i++) {
		const struct filter_frame *f = &frames[n - 1 - i];
		PyObject *entry = Py_BuildValue("((s#s#)K)", f->sym, (Py_ssize_t)f->symlen, f->exec,
						(Py_ssize_t)f->execlen, (unsigned long long)f->offset);

		if (!entry) {
			/* names that are not UTF-8 go in with surrogate escapes */
			PyErr_Clear();
			entry = Py_BuildValue("((NN)K)",
					      PyUnicode_DecodeUTF8(f->sym, (Py_ssize_t)f->symlen, "surrogateescape"),
					      PyUnicode_DecodeUTF8(f->exec, (Py_ssize_t)f->execlen, "surrogateescape"),
					      (unsigned long long)f->offset);
			if (!entry) {
				exception_text(err);
				goto cleanup;
			}
		}
		PyTuple_SET_ITEM(chain, (Py_ssize_t)i, entry);
	}
	result = PyObject_CallOneArg(p->process, chain);
	if (!result) {
		exception_text(err);
		goto cleanup;
	}
	if (!PyList_Check(result) && !PyTuple_Check(result)) {
		lp_error__set(err, -EINVAL, "process() returned %s, not a list of booleans", Py_TYPE(result)->tp_name);
		goto cleanup;
	}
	if ((size_t)PySequence_Fast_GET_SIZE(result) != n) {
		lp_error__set(err, -EINVAL, "process() returned %zd booleans for %zu frames",
			     PySequence_Fast_GET_SIZE(result), n);
		goto cleanup;
	}
	for (size_t i = 0; i < n; i++) {
		PyObject *v = PySequence_Fast_GET_ITEM(result, (Py_ssize_t)i);

		if (!PyBool_Check(v)) {
			lp_error__set(err, -EINVAL, "process() returned %s at position %zu, not a boolean",
				     Py_TYPE(v)->tp_name, i);
			goto cleanup;
		}
		keep[n - 1 - i] = v == Py_True;
	}
	ret = 0;
cleanup:
	Py_XDECREF(result);
	Py_DECREF(chain);
	return ret;
}
