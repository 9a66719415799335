/*
 * Reading user input files (astra-input.h).
 */

#include "astra-input.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

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

std::string
ReadInputFile(const std::string& path, const std::string& what)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
    {
        throw ConfigError(path + ": cannot open " + what);
    }
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
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
