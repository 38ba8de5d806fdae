/*
 * fuse_pyext.c - a Python C extension module ("fuse_pyext") that the FUSE
 * door tests compile, store in a Danaus mount and import from there.
 * answer() returns 42.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyObject *answer(PyObject *self, PyObject *args)
{
    (void)self;
    (void)args;
    return PyLong_FromLong(42);
}

static PyMethodDef methods[] = {
    {"answer", answer, METH_NOARGS, "42"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "fuse_pyext", NULL, -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit_fuse_pyext(void)
{
    return PyModule_Create(&module);
}
