/*
 * fuse_hello.c - a program the FUSE door tests (fuse-door.sh) copy into a
 * Danaus mount and execute from there.
 *
 *   fuse_hello [LIBRARY]
 *
 * Prints "hello", whether libdanaus is loaded in this process ("preload
 * yes|no": the preload must survive an exec), and, given a LIBRARY, dlopens
 * it and prints what its greet() returns. Exit 1 if the library fails.
 */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    printf("hello\n");
    printf("preload %s\n", dlsym(RTLD_DEFAULT, "danaus_open") ? "yes" : "no");
    if (argc < 2)
        return 0;
    void *lib = dlopen(argv[1], RTLD_NOW);
    if (!lib) {
        printf("dlopen: %s\n", dlerror());
        return 1;
    }
    const char *(*greet)(void) = (const char *(*)(void))dlsym(lib, "greet");
    if (!greet) {
        printf("dlsym: %s\n", dlerror());
        return 1;
    }
    printf("greet %s\n", greet());
    dlclose(lib);
    return 0;
}
