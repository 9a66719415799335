/*
 * Shared by the test suites that run the module's programs as subprocesses
 * (exit statuses, bad input, runner outputs, memory configurations): where a
 * program was built, and running a command line with its output captured.
 */

#ifndef ASTRA_TEST_PROGRAMS_H
#define ASTRA_TEST_PROGRAMS_H

#include <cstdint>
#include <cstdio>
#include <glob.h>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace ns3
{
namespace astra
{
namespace testutil
{

/**
 * \return the path of a built program of the module ("" if not found): next to
 * the test runner (standalone build), or where an ns-3 tree builds the module's
 * examples (build/contrib/astra-sim)
 * \param name the program's name, e.g. "astra-sim-runner"
 */
inline std::string
FindProgram(const std::string& name)
{
    char buf[4096];
    const ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
    if (n <= 0)
    {
        return "";
    }
    std::string dir(buf, static_cast<size_t>(n));
    dir = dir.substr(0, dir.find_last_of('/'));
    for (const std::string& p : {dir + "/" + name,
                                 dir + "/../contrib/astra-sim/ns3*-" + name + "-*",
                                 dir + "/../contrib/astra-sim/examples/ns3*-" + name + "-*",
                                 dir + "/../build/contrib/astra-sim/examples/ns3*-" + name + "-*"})
    {
        glob_t g;
        if (glob(p.c_str(), 0, nullptr, &g) == 0 && g.gl_pathc > 0)
        {
            std::string found = g.gl_pathv[0];
            globfree(&g);
            return found;
        }
        globfree(&g);
    }
    return "";
}

/**
 * Run a shell command line with stderr joined to stdout.
 * \param command the command line
 * \param out its output (at most \p maxOutput bytes are kept)
 * \param timeLimitSeconds killed (SIGKILL) after this many seconds; 0: no limit
 * \param maxOutput output bytes kept
 * \return the exit status, 128 + the signal if it was killed, -1 if it could not run
 */
inline int
RunCommand(const std::string& command,
           std::string& out,
           int timeLimitSeconds = 0,
           size_t maxOutput = SIZE_MAX)
{
    out.clear();
    const std::string full =
        (timeLimitSeconds > 0 ? "timeout -s KILL " + std::to_string(timeLimitSeconds) + " "
                              : std::string()) +
        command + " 2>&1";
    FILE* p = popen(full.c_str(), "r");
    if (p == nullptr)
    {
        return -1;
    }
    char buf[4096];
    size_t n = 0;
    while ((n = fread(buf, 1, sizeof(buf), p)) > 0)
    {
        if (out.size() < maxOutput)
        {
            out.append(buf, n);
        }
    }
    const int status = pclose(p);
    if (WIFEXITED(status))
    {
        return WEXITSTATUS(status);
    }
    return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : -1;
}

} // namespace testutil
} // namespace astra
} // namespace ns3

#endif /* ASTRA_TEST_PROGRAMS_H */
