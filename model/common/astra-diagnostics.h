/*
 * User-facing diagnostics shared by every layer: the error type of bad user
 * input, the exit statuses of the module's programs, and warnings that reach
 * the user in every build (NS_LOG is compiled out of optimized builds, so it
 * stays for debugging only).
 */

#ifndef ASTRA_DIAGNOSTICS_H
#define ASTRA_DIAGNOSTICS_H

#include <cstdint>
#include <iosfwd>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{
namespace astra
{

/**
 * \ingroup astra-sim
 * Exit statuses of the module's programs (README, "Exit statuses").
 */
enum ExitStatus : int
{
    EXIT_STATUS_OK = 0,            //!< the run completed
    EXIT_STATUS_INPUT_ERROR = 1,   //!< bad input (file, option, attribute value) or an NPU error
    EXIT_STATUS_HANG = 2,          //!< the simulation stopped making progress (deadlock, hang)
    EXIT_STATUS_LOSSLESS_DROP = 3, //!< frames were dropped in a lossless (PFC) class
};

/**
 * \ingroup astra-sim
 * Bad user input: a file, a command-line option or an attribute value. what()
 * names where the value came from (file and key, option, attribute) and what
 * would be right. Programs report it and exit with EXIT_STATUS_INPUT_ERROR;
 * it never ends in std::terminate.
 */
class InputError : public std::runtime_error
{
  public:
    using std::runtime_error::runtime_error;
};

/**
 * \ingroup astra-sim
 * Warnings a user sees in every build: the first occurrence of each cause is
 * printed (to std::cerr by default, prefixed "warning: "), later occurrences
 * are counted, and PrintSummary() reports the counts of causes seen more than
 * once. A cause is a short stable key ("irregular-group-flattened"); the text
 * is the first occurrence's full message.
 *
 * State is per process and cleared by Reset() (AstraSimScenario::Destroy()
 * calls it, so a second scenario in the same process starts clean).
 */
class Warnings
{
  public:
    /**
     * Report a warning.
     * \param cause a short key identifying the cause (one line per cause is printed)
     * \param message the text (printed the first time this cause is seen)
     */
    static void Warn(const std::string& cause, const std::string& message);

    /// \return how often \p cause was reported \param cause the key
    static uint64_t GetCount(const std::string& cause);
    /// \return how many warnings were reported in all
    static uint64_t GetTotal();
    /// \return the causes seen, in order of first occurrence, with their counts
    static std::vector<std::pair<std::string, uint64_t>> GetCauses();
    /// \return the first message of a cause ("" if never seen) \param cause the key
    static std::string GetFirstMessage(const std::string& cause);

    /**
     * Print one line per cause reported more than once: "warning: <cause>:
     * <n> times in all (first shown above)". Nothing if every cause was seen
     * once.
     * \param os the stream
     */
    static void PrintSummary(std::ostream& os);

    /**
     * Where the first occurrences go (default std::cerr; nullptr: nowhere,
     * counting only, e.g. in tests).
     * \param os the stream
     */
    static void SetStream(std::ostream* os);
    /// \return where first occurrences go (nullptr: nowhere)
    static std::ostream* GetStream();

    /// Forget every cause and count (the stream setting is kept).
    static void Reset();
};

/**
 * \ingroup astra-sim
 * Run a program body and turn an escaping exception into a message on
 * std::cerr and exit status EXIT_STATUS_INPUT_ERROR (InputError and the
 * parsers' errors) instead of std::terminate. A std::bad_alloc or any other
 * exception is reported as such, also with status 1. In a distributed run
 * (astra::Distributed, more than one rank) the error stops every rank
 * (Distributed::Abort) with that status: the others would wait for this one.
 * \param body the program (returns its exit status)
 * \return the body's status, or EXIT_STATUS_INPUT_ERROR after an exception
 */
int RunMain(int (*body)(int, char**), int argc, char** argv);

} // namespace astra
} // namespace ns3

/**
 * Report a user-facing warning; \p msg is a stream expression.
 * \code
 * ASTRA_WARN("halving-doubling-fallback", "group '" << g << "' has " << n
 *            << " NPUs (not a power of two): halvingDoubling runs as ring");
 * \endcode
 */
#define ASTRA_WARN(cause, msg)                                                                     \
    do                                                                                             \
    {                                                                                              \
        std::ostringstream astraWarnOs_;                                                           \
        astraWarnOs_ << msg;                                                                       \
        ::ns3::astra::Warnings::Warn(cause, astraWarnOs_.str());                                   \
    } while (false)

#endif /* ASTRA_DIAGNOSTICS_H */
