/* functrace_fork_open.c - a traced function forks while main and it are open: the child
 * calls g(), then returns from f() and main() (exit status 2); the parent waits for it
 * and exits 0 if the child did so. (functrace_fork_open.sh: the child's trace begins
 * with the frames open at the fork.) */
#include <sys/wait.h>
#include <unistd.h>

static volatile int sink;

__attribute__((noinline)) int g(int x)
{
    sink = x;
    return x + 1;
}

__attribute__((noinline)) int f(void)
{
    pid_t pid = fork();
    if (pid < 0)
        return 1;
    if (pid == 0) {
        int r = g(1);   /* not a tail call: g runs inside f */
        sink = r;
        return r;
    }
    int st = 0;
    if (waitpid(pid, &st, 0) != pid)
        return 1;
    sink = st;
    return WIFEXITED(st) && WEXITSTATUS(st) == 2 ? 0 : 1;
}

int main(void)
{
    int r = f();
    sink = r;
    return r;
}
