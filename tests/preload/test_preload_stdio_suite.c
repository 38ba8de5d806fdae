/*
 * test_preload_stdio_suite.c - the stdio calls an application makes on
 * files, as a program that knows nothing of Danaus.
 *
 *   test_preload_stdio_suite DIR
 *
 * prints a transcript of fopen/fdopen/freopen round trips in DIR: contents
 * read back, positions, results and errno names. test_preload_dir_compare
 * runs it on a plain directory and on a Danaus mount and compares. The
 * last step moves stdout onto a file in DIR; the transcript goes on
 * through a kernel copy of the original descriptor.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *root;
static FILE *out; /* the transcript */

static char *at(const char *name)
{
    static char paths[4][4096];
    static int next;
    char *p = paths[next++ % 4];
    snprintf(p, sizeof paths[0], "%s/%s", root, name);
    return p;
}

static void say(const char *what, long rc)
{
    if (rc < 0)
        fprintf(out, "%s = -1 %s\n", what, strerrorname_np(errno));
    else
        fprintf(out, "%s = %ld\n", what, rc);
}

static void say_file(const char *what, FILE *fp)
{
    fprintf(out, "%s = %s%s\n", what, fp ? "FILE" : "NULL ",
            fp ? "" : strerrorname_np(errno));
}

/* The whole file, through fopen/fread. */
static void show(const char *name)
{
    FILE *fp = fopen(at(name), "r");
    if (!fp) {
        fprintf(out, "%s: cannot open: %s\n", name, strerrorname_np(errno));
        return;
    }
    char buf[4096];
    size_t n = fread(buf, 1, sizeof buf - 1, fp);
    buf[n] = '\0';
    fprintf(out, "%s (%zu bytes): [%s]\n", name, n, buf);
    fclose(fp);
}

static void round_trips(void)
{
    FILE *fp = fopen(at("lines"), "w");
    say_file("fopen w", fp);
    for (int i = 0; i < 5; i++)
        fprintf(fp, "line %d of %s\n", i, "five");
    fputs("no newline at the end", fp);
    say("ftell", ftell(fp));
    say("fclose", fclose(fp));

    fp = fopen(at("lines"), "r");
    char buf[256];
    while (fgets(buf, sizeof buf, fp))
        fprintf(out, "fgets: %s%s", buf, strchr(buf, '\n') ? "" : "\n");
    say("feof", feof(fp));
    rewind(fp);
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, fp)) > 0)
        fprintf(out, "getline %zd\n", n);
    free(line);
    fclose(fp);

    /* Append: "a" starts and stays at the end; "a+" reads from the
     * start and writes at the end. */
    fp = fopen(at("lines"), "a");
    say("a: ftell at open", ftell(fp));
    fputs("\nappended", fp);
    say("a: ftell after write", ftell(fp));
    fclose(fp);
    fp = fopen(at("lines"), "a+");
    say("a+: ftell at open", ftell(fp));
    if (!fgets(buf, sizeof buf, fp))
        buf[0] = 0;
    fprintf(out, "a+: first line %s", buf);
    fputs("\nagain", fp);
    say("a+: ftell after write", ftell(fp));
    fclose(fp);
    show("lines");

    /* Seeking. */
    fp = fopen(at("lines"), "r+");
    say("fseek 5", fseek(fp, 5, SEEK_SET));
    say("fgetc", fgetc(fp));
    say("ftell", ftell(fp));
    say("fseeko -5 end", fseeko(fp, -5, SEEK_END));
    say("ftello", (long)ftello(fp));
    say("fwrite", (long)fwrite("AGAIN", 1, 5, fp));
    say("fseek -1 set", fseek(fp, -1, SEEK_SET));
    say("fflush", fflush(fp));
    rewind(fp);
    say("fread", (long)fread(buf, 1, 4, fp));
    fclose(fp);
    show("lines");

    /* fileno is a descriptor the descriptor calls accept. */
    fp = fopen(at("lines"), "r");
    struct stat st;
    say("fileno valid", fileno(fp) >= 0);
    say("fstat(fileno) size", fstat(fileno(fp), &st) < 0 ? -1 : st.st_size);
    fclose(fp);

    /* A transfer larger than any buffer on the way. */
    fp = fopen(at("big"), "w+");
    long sum = 0, back = 0;
    for (int i = 0; i < 300000; i++) {
        fputc('a' + i % 26, fp);
        sum += 'a' + i % 26;
    }
    rewind(fp);
    int c;
    while ((c = fgetc(fp)) != EOF)
        back += c;
    say("big: sums equal", sum == back);
    say("big: ftell", ftell(fp));
    fclose(fp);
}

static void modes(void)
{
    say_file("fopen missing r", fopen(at("missing"), "r"));
    say_file("fopen missing dir w", fopen(at("nodir/x"), "w"));
    say_file("fopen bad mode", fopen(at("lines"), "z"));
    say_file("fopen wx existing", fopen(at("lines"), "wx"));
    FILE *fp = fopen(at("fresh"), "wxe");
    say_file("fopen wxe new", fp);
    say("cloexec", fcntl(fileno(fp), F_GETFD));
    fputs("fresh", fp);
    fclose(fp);
    fp = fopen(at("fresh"), "rb+");
    say_file("fopen rb+", fp);
    fputs("FR", fp);
    fclose(fp);
    show("fresh");
    fp = fopen(at("fresh"), "r");
    say("fputs on r", fputs("x", fp));
    say("ferror", ferror(fp) != 0);
    fclose(fp);
    fp = fopen(at("fresh"), "w");
    say("fgetc on w", fgetc(fp));
    fclose(fp);
    show("fresh");
    say_file("fopen dir w", fopen(root, "w"));
}

static void fdopens(void)
{
    int fd = open(at("fd"), O_CREAT | O_RDWR | O_TRUNC, 0644);
    FILE *fp = fdopen(fd, "w+");
    say_file("fdopen w+", fp);
    say("fileno is fd", fileno(fp) == fd);
    fprintf(fp, "through fdopen %d\n", 42);
    rewind(fp);
    char buf[64] = "";
    if (!fgets(buf, sizeof buf, fp))
        buf[0] = 0;
    fprintf(out, "read back: %s", buf);
    say("fclose", fclose(fp));
    errno = 0;
    say("fd closed by fclose", fcntl(fd, F_GETFD));

    fd = open(at("fd"), O_RDONLY);
    say_file("fdopen(O_RDONLY, w)", fdopen(fd, "w"));
    say_file("fdopen(O_RDONLY, r+)", fdopen(fd, "r+"));
    close(fd);
    fd = open(at("fd"), O_WRONLY);
    fp = fdopen(fd, "a");
    say_file("fdopen(O_WRONLY, a)", fp);
    say("O_APPEND set", (fcntl(fd, F_GETFL) & O_APPEND) != 0);
    fputs("appended\n", fp);
    fclose(fp);
    show("fd");
    say_file("fdopen(bad fd)", fdopen(1000, "r"));
}

static void freopens(void)
{
    FILE *fp = fopen(at("reopen"), "w");
    fputs("written, then read", fp);
    fp = freopen(NULL, "r", fp);
    say_file("freopen(NULL, r)", fp);
    char buf[64] = "";
    if (!fgets(buf, sizeof buf, fp))
        buf[0] = 0;
    fprintf(out, "read: %s\n", buf);
    fp = freopen(at("fresh"), "r", fp);
    say_file("freopen(fresh, r)", fp);
    if (!fgets(buf, sizeof buf, fp))
        buf[0] = 0;
    fprintf(out, "read: %s\n", buf);
    fclose(fp);

    /* stdout onto a file: printf, puts and write(1) all land there. */
    fflush(stdout);
    int keep = dup(1);
    out = fdopen(keep, "w");
    FILE *r = freopen(at("stdout"), "w", stdout);
    say_file("freopen(stdout)", r);
    say("fileno(stdout)", fileno(stdout));
    printf("via printf %d\n", 1);
    puts("via puts");
    fflush(stdout);
    say("write(1)", write(1, "via write\n", 10));
    fprintf(stdout, "via fprintf\n");
    fclose(stdout);
    show("stdout");
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_preload_stdio_suite DIR\n");
        return 2;
    }
    root = argv[1];
    out = stdout;
    umask(022);
    round_trips();
    modes();
    fdopens();
    freopens();
    FILE *t = tmpfile();
    say_file("tmpfile", t);
    fclose(t);
    fclose(out);
    return 0;
}
