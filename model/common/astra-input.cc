/*
 * Reading user input files (astra-input.h).
 */

#include "astra-input.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace ns3
{
namespace astra
{

namespace
{

/// Lower case, '_' read as '-'.
std::string
Normalize(const std::string& s)
{
    std::string out = s;
    for (auto& c : out)
    {
        c = c == '_' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return out;
}

/// Edit distance: insertions, deletions, substitutions and swaps of two neighbours.
size_t
EditDistance(const std::string& a, const std::string& b)
{
    std::vector<size_t> before(b.size() + 1);
    std::vector<size_t> prev(b.size() + 1);
    std::vector<size_t> cur(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j)
    {
        prev[j] = j;
    }
    for (size_t i = 1; i <= a.size(); ++i)
    {
        cur[0] = i;
        for (size_t j = 1; j <= b.size(); ++j)
        {
            cur[j] = std::min(
                {prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
            {
                cur[j] = std::min(cur[j], before[j - 2] + 1);
            }
        }
        before.swap(prev);
        prev.swap(cur);
    }
    return prev[b.size()];
}

} // namespace

namespace
{

/// \return what a non-regular file is ("a directory", "a FIFO (named pipe)", ...)
std::string
KindOf(mode_t mode)
{
    if (S_ISDIR(mode))
    {
        return "a directory";
    }
    if (S_ISFIFO(mode))
    {
        return "a FIFO (named pipe)";
    }
    if (S_ISCHR(mode))
    {
        return "a character device";
    }
    if (S_ISBLK(mode))
    {
        return "a block device";
    }
    if (S_ISSOCK(mode))
    {
        return "a socket";
    }
    return "not a regular file";
}

/// Throw the error of a path that is not a regular file.
[[noreturn]] void
NotRegular(const std::string& path, const std::string& what, mode_t mode)
{
    throw ConfigError(path + ": is " + KindOf(mode) + "; the " + what + " must be a regular file");
}

/// Closes a file descriptor when it goes out of scope.
struct FdCloser
{
    int fd; //!< the descriptor

    ~FdCloser()
    {
        if (fd >= 0)
        {
            close(fd);
        }
    }
};

} // namespace

uint64_t
CheckInputFile(const std::string& path, const std::string& what)
{
    if (path.empty())
    {
        throw ConfigError("empty file name given for the " + what);
    }
    struct stat st;
    if (stat(path.c_str(), &st) != 0)
    {
        throw ConfigError(path + ": cannot open " + what + ": " + std::strerror(errno));
    }
    if (!S_ISREG(st.st_mode))
    {
        NotRegular(path, what, st.st_mode);
    }
    if (access(path.c_str(), R_OK) != 0)
    {
        throw ConfigError(path + ": cannot open " + what + ": " + std::strerror(errno));
    }
    return static_cast<uint64_t>(st.st_size);
}

std::string
ReadInputFile(const std::string& path, const std::string& what, uint64_t maxBytes)
{
    if (path.empty())
    {
        throw ConfigError("empty file name given for the " + what);
    }
    // O_NONBLOCK: a FIFO without a writer is not waited for; fstat() then rejects it
    const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
    {
        throw ConfigError(path + ": cannot open " + what + ": " + std::strerror(errno));
    }
    FdCloser closer{fd};
    struct stat st;
    if (fstat(fd, &st) != 0)
    {
        throw ConfigError(path + ": cannot open " + what + ": " + std::strerror(errno));
    }
    if (!S_ISREG(st.st_mode))
    {
        NotRegular(path, what, st.st_mode);
    }
    auto tooLarge = [&](uint64_t size) {
        throw ConfigError(path + ": " + what + " of " + std::to_string(size) +
                          " bytes exceeds the limit of " + std::to_string(maxBytes) + " bytes");
    };
    if (static_cast<uint64_t>(st.st_size) > maxBytes)
    {
        tooLarge(static_cast<uint64_t>(st.st_size));
    }
    std::string out;
    out.resize(static_cast<size_t>(st.st_size));
    size_t have = 0;
    for (;;)
    {
        if (have == out.size())
        {
            if (out.size() > maxBytes)
            {
                tooLarge(out.size());
            }
            // the file may have grown since fstat(): read on, in steps, up to the limit
            out.resize(out.size() + 65536);
        }
        const ssize_t n = read(fd, &out[have], out.size() - have);
        if (n < 0)
        {
            if (errno == EINTR)
            {
                continue;
            }
            throw ConfigError(path + ": cannot read " + what + ": " + std::strerror(errno));
        }
        if (n == 0)
        {
            break;
        }
        have += static_cast<size_t>(n);
    }
    out.resize(have);
    if (have > maxBytes)
    {
        tooLarge(have);
    }
    return out;
}

nlohmann::json
ParseJsonText(const std::string& text, const std::string& name)
{
    // keys seen per open object, to reject a key given twice
    std::vector<std::set<std::string>> open;
    std::string duplicate;
    auto callback = [&](int, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
        switch (event)
        {
        case nlohmann::json::parse_event_t::object_start:
            open.emplace_back();
            break;
        case nlohmann::json::parse_event_t::object_end:
            if (!open.empty())
            {
                open.pop_back();
            }
            break;
        case nlohmann::json::parse_event_t::key:
            if (!open.empty() && !open.back().insert(parsed.get<std::string>()).second &&
                duplicate.empty())
            {
                duplicate = parsed.get<std::string>();
            }
            break;
        default:
            break;
        }
        return true;
    };
    if (text.find_first_not_of(" \t\r\n") == std::string::npos)
    {
        throw ConfigError(name + ": empty file (expected JSON)");
    }
    nlohmann::json j;
    try
    {
        j = nlohmann::json::parse(text, callback);
    }
    catch (const nlohmann::json::exception& e)
    {
        throw ConfigError(name + ": invalid JSON: " + e.what());
    }
    if (!duplicate.empty())
    {
        throw ConfigError(name + ": duplicate key '" + duplicate + "'");
    }
    return j;
}

nlohmann::json
ReadJsonFile(const std::string& path, const std::string& what)
{
    return ParseJsonText(ReadInputFile(path, what), path);
}

std::string
ClosestMatch(const std::string& word, const std::vector<std::string>& known)
{
    std::string best;
    size_t bestDistance = std::string::npos;
    const std::string norm = Normalize(word);
    for (const auto& k : known)
    {
        const size_t d = Normalize(k) == norm ? 0 : EditDistance(word, k);
        if (d < bestDistance)
        {
            bestDistance = d;
            best = k;
        }
    }
    if (!best.empty() && bestDistance <= std::max<size_t>(1, word.size() / 4))
    {
        return best;
    }
    return "";
}

std::string
DidYouMean(const std::string& word, const std::vector<std::string>& known)
{
    const std::string m = ClosestMatch(word, known);
    return m.empty() ? std::string() : " (did you mean '" + m + "'?)";
}

void
WarnNotModelled(const std::string& file,
                const std::string& key,
                const std::string& value,
                const std::string& what)
{
    ASTRA_WARN("not-modelled:" + key,
               file << ": key '" << key << "' = " << value
                    << " is accepted but not modelled: " << what);
}

} // namespace astra
} // namespace ns3
