#include "astra-diagnostics.h"

#include "astra-distributed.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <iostream>
#include <map>
#include <new>

namespace ns3
{
namespace astra
{

namespace
{

/// One cause of warnings.
struct Cause
{
    std::string first; //!< first message
    uint64_t count{0}; //!< occurrences
};

/// Process-wide warning state.
struct WarningState
{
    std::map<std::string, size_t> index; //!< cause -> position in causes
    std::vector<std::pair<std::string, Cause>> causes;
    uint64_t total{0};
    std::ostream* os{&std::cerr};
};

WarningState&
State()
{
    static WarningState s;
    return s;
}

} // namespace

void
Warnings::Warn(const std::string& cause, const std::string& message)
{
    WarningState& s = State();
    ++s.total;
    auto it = s.index.find(cause);
    if (it != s.index.end())
    {
        ++s.causes[it->second].second.count;
        return;
    }
    s.index.emplace(cause, s.causes.size());
    s.causes.push_back({cause, Cause{message, 1}});
    if (s.os != nullptr)
    {
        *s.os << "warning: " << message << std::endl;
    }
}

uint64_t
Warnings::GetCount(const std::string& cause)
{
    const WarningState& s = State();
    auto it = s.index.find(cause);
    return it == s.index.end() ? 0 : s.causes[it->second].second.count;
}

uint64_t
Warnings::GetTotal()
{
    return State().total;
}

std::vector<std::pair<std::string, uint64_t>>
Warnings::GetCauses()
{
    std::vector<std::pair<std::string, uint64_t>> out;
    for (const auto& c : State().causes)
    {
        out.emplace_back(c.first, c.second.count);
    }
    return out;
}

std::string
Warnings::GetFirstMessage(const std::string& cause)
{
    const WarningState& s = State();
    auto it = s.index.find(cause);
    return it == s.index.end() ? std::string() : s.causes[it->second].second.first;
}

void
Warnings::PrintSummary(std::ostream& os)
{
    for (const auto& c : State().causes)
    {
        if (c.second.count > 1)
        {
            os << "warning: " << c.first << ": " << c.second.count
               << " times in all (first shown above)" << std::endl;
        }
    }
}

void
Warnings::SetStream(std::ostream* os)
{
    State().os = os;
}

std::ostream*
Warnings::GetStream()
{
    return State().os;
}

void
Warnings::Reset()
{
    WarningState& s = State();
    s.index.clear();
    s.causes.clear();
    s.total = 0;
}

int
RunMain(int (*body)(int, char**), int argc, char** argv)
{
    try
    {
        return body(argc, argv);
    }
    catch (const std::bad_alloc&)
    {
        std::cerr << "error: out of memory" << std::endl;
    }
    catch (const std::exception& e)
    {
        std::cerr << "error: " << e.what() << std::endl;
    }
    if (Distributed::GetSize() > 1)
    {
        // a distributed run: the other ranks would wait for this one in the simulator's
        // synchronisation; stop them all, with this status
        Distributed::Abort(EXIT_STATUS_INPUT_ERROR);
    }
    return EXIT_STATUS_INPUT_ERROR;
}

} // namespace astra
} // namespace ns3
