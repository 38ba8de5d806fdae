/*
 * confine.c - what a container's processes may ask of the kernel
 * (confine.h): podman's default capability set, a seccomp filter that
 * refuses the calls its default profile refuses, and no_new_privs.
 */
#include "confine.h"
#include "fail.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* podman's default_capabilities (containers.conf). */
#define KEPT_CAPS                                                         \
    ((1ull << CAP_CHOWN) | (1ull << CAP_DAC_OVERRIDE) |                   \
     (1ull << CAP_FOWNER) | (1ull << CAP_FSETID) | (1ull << CAP_KILL) |   \
     (1ull << CAP_NET_BIND_SERVICE) | (1ull << CAP_SETFCAP) |             \
     (1ull << CAP_SETGID) | (1ull << CAP_SETPCAP) | (1ull << CAP_SETUID) | \
     (1ull << CAP_SYS_CHROOT))

uint64_t confine_kept_caps(void)
{
    return KEPT_CAPS;
}

int confine_caps(void)
{
    /* The bounding set is what any later execve can grant, root's or a
     * file capability's; the sets of this process follow it below. */
    for (int cap = 0; cap <= CAP_LAST_CAP; cap++)
        if (!(KEPT_CAPS & (1ull << cap)) &&
            prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0 && errno != EINVAL)
            return fail_errno("cannot drop capability %d", cap);
    if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0)
        return fail_errno("cannot clear the ambient capabilities");
    struct __user_cap_header_struct head = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct data[2] = {
        {(uint32_t)KEPT_CAPS, (uint32_t)KEPT_CAPS, 0},
        {(uint32_t)(KEPT_CAPS >> 32), (uint32_t)(KEPT_CAPS >> 32), 0}};
    if (syscall(SYS_capset, &head, data) < 0)
        return fail_errno("cannot set the container's capabilities");
    return 0;
}

/* Refused with EPERM, as docker's default profile refuses them: mounts
 * and namespaces (the container's own are made before this), handles
 * that reach past a mount's root (the "shocker" escape), the kernel's
 * modules, keys, clocks, swap, tracing and BPF. */
static const int refused[] = {
    SYS_open_by_handle_at, SYS_mount, SYS_umount2, SYS_pivot_root,
    SYS_open_tree, SYS_move_mount, SYS_fsopen, SYS_fsconfig, SYS_fsmount,
    SYS_fspick, SYS_mount_setattr, SYS_unshare, SYS_setns,
    SYS_kexec_load, SYS_kexec_file_load, SYS_init_module,
    SYS_finit_module, SYS_delete_module, SYS_bpf, SYS_perf_event_open,
    SYS_keyctl, SYS_add_key, SYS_request_key, SYS_userfaultfd,
    SYS_lookup_dcookie, SYS_iopl, SYS_ioperm, SYS_swapon, SYS_swapoff,
    SYS_reboot, SYS_syslog, SYS_acct, SYS_settimeofday, SYS_clock_settime,
    SYS_clock_adjtime, SYS_adjtimex, SYS_quotactl, SYS_quotactl_fd,
    SYS_uselib, SYS_vhangup, SYS_nfsservctl,
};

#define NEW_NAMESPACES                                                    \
    (CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER |          \
     CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWCGROUP)
#define N_REFUSED ((int)(sizeof refused / sizeof refused[0]))
#define ALLOW SECCOMP_RET_ALLOW
#define EPERM_RET (SECCOMP_RET_ERRNO | EPERM)

int confine_syscalls(void)
{
    /* Layout: arch check, x32 check, one test per refused call, clone's
     * flags, clone3 (ENOSYS, so libc falls back to clone, whose flags
     * this filter can see: clone3 passes them in memory), allow. */
    struct sock_filter f[8 + 2 * N_REFUSED + 8];
    int n = 0;
    f[n++] = (struct sock_filter)BPF_STMT(
        BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
    f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
                                          AUDIT_ARCH_X86_64, 1, 0);
    f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
                                          SECCOMP_RET_KILL_PROCESS);
    f[n++] = (struct sock_filter)BPF_STMT(
        BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
    /* x32 calls are native numbers with bit 30 set: none is allowed. */
    f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K,
                                          0x40000000u, 0, 1);
    f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
                                          SECCOMP_RET_KILL_PROCESS);
    for (int i = 0; i < N_REFUSED; i++) {
        f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
                                              (uint32_t)refused[i], 0, 1);
        f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, EPERM_RET);
    }
    f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
                                          SYS_clone3, 0, 1);
    f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
                                          SECCOMP_RET_ERRNO | ENOSYS);
    f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
                                          SYS_clone, 0, 3);
    /* clone's flags are its first argument's low word (x86_64 is
     * little-endian); every namespace flag lies there. */
    f[n++] = (struct sock_filter)BPF_STMT(
        BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0]));
    f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K,
                                          NEW_NAMESPACES, 0, 1);
    f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, EPERM_RET);
    f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, ALLOW);
    struct sock_fprog prog = {(unsigned short)n, f};
    if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) < 0)
        return fail_errno("cannot install the container's seccomp filter");
    return 0;
}

int confine_no_new_privs(void)
{
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
        return fail_errno("cannot set no_new_privs");
    return 0;
}
