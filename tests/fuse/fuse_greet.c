/*
 * fuse_greet.c - a shared library the FUSE door tests store in a Danaus
 * mount and dlopen from there (fuse_hello.c).
 */
const char *greet(void);

const char *greet(void)
{
    return "from a library on Danaus";
}
