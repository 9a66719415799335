/*
 * Checked command lines (astra-command-line.h).
 */

#include "astra-command-line.h"

#include "ns3/astra-input.h"
#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/global-value.h"
#include "ns3/integer.h"
#include "ns3/nstime.h"
#include "ns3/string.h"
#include "ns3/type-id.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <iostream>
#include <map>
#include <set>
#include <sys/wait.h>
#include <unistd.h>

namespace ns3
{
namespace astra
{

namespace
{

/// \return ns-3's abort message (the msg="..." part) or the first line of \p text
std::string
AbortReason(const std::string& text)
{
    const size_t a = text.find("msg=\"");
    if (a != std::string::npos)
    {
        const size_t b = text.find("\", file=", a);
        if (b != std::string::npos)
        {
            return text.substr(a + 5, b - a - 5);
        }
    }
    return text.substr(0, text.find('\n'));
}

/// \return the names of every registered TypeId
std::vector<std::string>
TypeIdNames()
{
    std::vector<std::string> names;
    for (uint16_t i = 0; i < TypeId::GetRegisteredN(); ++i)
    {
        names.push_back(TypeId::GetRegistered(i).GetName());
    }
    return names;
}

/// \return the attribute names of \p tid and its parents \param tid the type
std::vector<std::string>
AttributeNames(TypeId tid)
{
    std::vector<std::string> names;
    for (;;)
    {
        for (std::size_t i = 0; i < tid.GetAttributeN(); ++i)
        {
            names.push_back(tid.GetAttribute(i).name);
        }
        const TypeId parent = tid.GetParent();
        if (parent == tid)
        {
            break;
        }
        tid = parent;
    }
    return names;
}

/// \return the global value named \p name, or nullptr \param name the name
GlobalValue*
FindGlobal(const std::string& name)
{
    for (auto it = GlobalValue::Begin(); it != GlobalValue::End(); ++it)
    {
        if ((*it)->GetName() == name)
        {
            return *it;
        }
    }
    return nullptr;
}

/**
 * What is wrong with a value ns-3 rejected or aborted on.
 * \param checker the attribute's checker
 * \param value the value
 * \param aborted ns-3 aborted (its message in \p reason)
 * \param reason ns-3's message
 * \return the explanation
 */
std::string
BadValue(Ptr<const AttributeChecker> checker,
         const std::string& value,
         bool aborted,
         const std::string& reason)
{
    std::string type = checker->GetValueTypeName();
    if (type.rfind("ns3::", 0) == 0)
    {
        type = type.substr(5);
    }
    if (type == "TypeIdValue")
    {
        TypeId tid;
        if (!TypeId::LookupByNameFailSafe(value, &tid))
        {
            return "unknown TypeId '" + value + "'" + DidYouMean(value, TypeIdNames());
        }
    }
    std::string expected =
        checker->HasUnderlyingTypeInformation() ? checker->GetUnderlyingTypeInformation() : "";
    if (type == "EnumValue")
    {
        std::vector<std::string> names;
        std::stringstream ss(expected);
        std::string part;
        while (std::getline(ss, part, '|'))
        {
            names.push_back(part);
        }
        return "unknown value '" + value + "' (expected one of " + expected + ")" +
               DidYouMean(value, names);
    }
    std::string out = "invalid value '" + value + "'";
    if (aborted && !reason.empty())
    {
        out += " (" + reason + ")";
    }
    out += "; expected a " + type + (expected.empty() ? "" : " (" + expected + ")");
    return out;
}

/// A finite decimal number filling the whole string (no leading space).
bool
ParseFiniteNumber(const std::string& s, double& v)
{
    if (s.empty() || std::isspace(static_cast<unsigned char>(s[0])))
    {
        return false;
    }
    char* end = nullptr;
    errno = 0;
    const double x = std::strtod(s.c_str(), &end);
    if (*end != '\0' || !std::isfinite(x) || errno == ERANGE)
    {
        return false;
    }
    v = x;
    return true;
}

/// \return "" or what is wrong with a time in ns-3's syntax (number, then unit)
std::string
CheckTimeText(const std::string& s)
{
    static const std::map<std::string, double> kUnitNs{{"", 1},
                                                       {"s", 1e9},
                                                       {"ms", 1e6},
                                                       {"us", 1e3},
                                                       {"ns", 1},
                                                       {"ps", 1e-3},
                                                       {"fs", 1e-6},
                                                       {"min", 60e9},
                                                       {"h", 3600e9},
                                                       {"d", 86400e9},
                                                       {"y", 365 * 86400e9}};
    const size_t n = s.find_first_not_of("+-0123456789.eE");
    double v = 0;
    const auto unit = kUnitNs.find(n == std::string::npos ? "" : s.substr(n));
    if (n == 0 || !ParseFiniteNumber(s.substr(0, n), v) || unit == kUnitNs.end())
    {
        return "is not a time (a finite number and a unit: s, ms, us, ns, ps)";
    }
    if (v < 0)
    {
        return "is negative (a time here is >= 0)";
    }
    if (v * unit->second > 1e15)
    {
        return "is larger than 1e15 ns (about 11.6 days), the largest time accepted";
    }
    return "";
}

/// \return "" or what is wrong with a data rate in ns-3's syntax (number, then unit)
std::string
CheckDataRateText(const std::string& s)
{
    static const std::map<std::string, double> kUnitBps{{"bps", 1},
                                                        {"b/s", 1},
                                                        {"Bps", 8},
                                                        {"B/s", 8},
                                                        {"kbps", 1e3},
                                                        {"kb/s", 1e3},
                                                        {"Kbps", 1e3},
                                                        {"Kb/s", 1e3},
                                                        {"kBps", 8e3},
                                                        {"kB/s", 8e3},
                                                        {"KBps", 8e3},
                                                        {"KB/s", 8e3},
                                                        {"Kib/s", 1024.0},
                                                        {"KiB/s", 8192.0},
                                                        {"Mbps", 1e6},
                                                        {"Mb/s", 1e6},
                                                        {"MBps", 8e6},
                                                        {"MB/s", 8e6},
                                                        {"Mib/s", 1048576.0},
                                                        {"MiB/s", 8388608.0},
                                                        {"Gbps", 1e9},
                                                        {"Gb/s", 1e9},
                                                        {"GBps", 8e9},
                                                        {"GB/s", 8e9},
                                                        {"Gib/s", 1073741824.0},
                                                        {"GiB/s", 8589934592.0}};
    const size_t n = s.find_first_not_of("0123456789.");
    std::string unit = n == std::string::npos ? "" : s.substr(n);
    unit.erase(0, std::min(unit.size(), unit.find_first_not_of(' ')));
    double v = 0;
    const auto u = kUnitBps.find(unit);
    if (n == 0 || !ParseFiniteNumber(s.substr(0, n), v) || (u == kUnitBps.end() && !unit.empty()))
    {
        return "is not a data rate (a non-negative number and a unit: bps, Kbps, Mbps, Gbps, "
               "GBps, ...)";
    }
    if (v * (u == kUnitBps.end() ? 1.0 : u->second) > 1e15)
    {
        return "is larger than 1e15 bit/s (1 Pbit/s), the largest rate accepted";
    }
    return "";
}

} // namespace

OptionRange
OptionRange::Closed(double lo, double hi, const std::string& unit)
{
    return OptionRange{lo, hi, false, unit};
}

OptionRange
OptionRange::Positive(double hi, const std::string& unit)
{
    return OptionRange{0, hi, true, unit};
}

std::string
OptionRange::Check(double v) const
{
    auto text = [this](double x) {
        std::ostringstream os;
        os << x << (unit.empty() ? "" : " " + unit);
        return os.str();
    };
    if (!std::isfinite(v))
    {
        return "expected a finite number";
    }
    if (minOpen ? !(v > min) : !(v >= min))
    {
        return "must be " + std::string(minOpen ? "> " : ">= ") + text(min);
    }
    if (v > max)
    {
        return "must be at most " + text(max);
    }
    return "";
}

std::string
CheckAttributeValueSyntax(const std::string& v, const Ptr<const AttributeChecker>& checker)
{
    const Ptr<AttributeValue> probe = checker->Create();
    const bool number = DynamicCast<UintegerValue>(probe) || DynamicCast<IntegerValue>(probe) ||
                        DynamicCast<DoubleValue>(probe) || DynamicCast<TimeValue>(probe) ||
                        DynamicCast<BooleanValue>(probe) || DynamicCast<TypeIdValue>(probe) ||
                        DynamicCast<EnumValue>(probe);
    if (number && v.find_first_of(" \t\r\n") != std::string::npos)
    {
        return "a value of this attribute has no spaces";
    }
    if (DynamicCast<UintegerValue>(probe))
    {
        if (!v.empty() && v[0] == '-')
        {
            return "must be >= 0";
        }
        return !v.empty() && v.find_first_not_of("0123456789") == std::string::npos
                   ? ""
                   : "is not a non-negative integer";
    }
    if (DynamicCast<IntegerValue>(probe))
    {
        const std::string digits = !v.empty() && (v[0] == '-' || v[0] == '+') ? v.substr(1) : v;
        return !digits.empty() && digits.find_first_not_of("0123456789") == std::string::npos
                   ? ""
                   : "is not an integer";
    }
    if (DynamicCast<DoubleValue>(probe))
    {
        double d = 0;
        return ParseFiniteNumber(v, d) ? "" : "is not a finite number";
    }
    if (DynamicCast<TimeValue>(probe))
    {
        return CheckTimeText(v);
    }
    if (DynamicCast<DataRateValue>(probe))
    {
        return CheckDataRateText(v);
    }
    if (DynamicCast<TypeIdValue>(probe))
    {
        TypeId tid;
        if (!TypeId::LookupByNameFailSafe(v, &tid))
        {
            return "is not a registered TypeId" + DidYouMean(v, TypeIdNames());
        }
    }
    return "";
}

namespace
{

/// The attributes given in this process.
std::vector<GivenAttribute>&
GivenAttributes()
{
    static std::vector<GivenAttribute> given;
    return given;
}

} // namespace

const std::vector<GivenAttribute>&
GetGivenAttributes()
{
    return GivenAttributes();
}

void
RecordGivenAttribute(const GivenAttribute& a)
{
    GivenAttributes().push_back(a);
}

void
ClearGivenAttributes()
{
    GivenAttributes().clear();
}

int
CheckInChild(const std::function<bool()>& check, std::string* reason)
{
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    int fds[2];
    if (pipe(fds) != 0)
    {
        return 1;
    }
    const pid_t pid = fork();
    if (pid < 0)
    {
        close(fds[0]);
        close(fds[1]);
        return 1;
    }
    if (pid == 0)
    {
        // the child: stderr into the pipe, stdout nowhere; never returns
        dup2(fds[1], 2);
        close(fds[0]);
        close(fds[1]);
        const int null = open("/dev/null", O_WRONLY);
        if (null >= 0)
        {
            dup2(null, 1);
        }
        _exit(check() ? 0 : 1);
    }
    close(fds[1]);
    std::string message;
    char buf[512];
    ssize_t n = 0;
    while ((n = read(fds[0], buf, sizeof(buf))) > 0)
    {
        message.append(buf, static_cast<size_t>(n));
    }
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
    {
        if (errno != EINTR)
        {
            return 1;
        }
    }
    if (WIFEXITED(status))
    {
        return WEXITSTATUS(status) == 0 ? 1 : 0;
    }
    if (reason)
    {
        *reason = AbortReason(message);
    }
    return -1;
}

void
CheckAttributeArgument(const std::string& name, const std::string& value)
{
    std::string reason;
    const int ok = CheckInChild(
        [&]() {
            // as CommandLine applies an argument it does not know as an option
            return Config::SetGlobalFailSafe(name, StringValue(value)) ||
                   Config::SetDefaultFailSafe(name, StringValue(value));
        },
        &reason);
    if (ok == 1)
    {
        // ns-3 takes the value; what it would read wrongly (a sign on an unsigned, an
        // overflowing time or rate, seed 0) is still an error
        Ptr<const AttributeChecker> checker;
        const size_t pos = name.rfind("::");
        TypeId tid;
        TypeId::AttributeInformation info;
        if (pos == std::string::npos)
        {
            if (GlobalValue* g = FindGlobal(name))
            {
                checker = g->GetChecker();
            }
        }
        else if (TypeId::LookupByNameFailSafe(name.substr(0, pos), &tid) &&
                 tid.LookupAttributeByName(name.substr(pos + 2), &info))
        {
            checker = info.checker;
        }
        if (checker)
        {
            std::string err = CheckAttributeValueSyntax(value, checker);
            if (err.empty() && name == "RngSeed" &&
                value.find_first_not_of('0') == std::string::npos)
            {
                err = "is not a seed (ns-3's generator needs a seed >= 1)";
            }
            if (!err.empty())
            {
                throw InputError("--" + name + "=" + value + ": '" + value + "' " + err);
            }
        }
        return;
    }
    const bool aborted = ok < 0;
    const std::string arg = "--" + name + "=" + value;
    const size_t pos = name.rfind("::");
    if (pos == std::string::npos)
    {
        if (GlobalValue* g = FindGlobal(name))
        {
            throw InputError(arg + ": " + BadValue(g->GetChecker(), value, aborted, reason));
        }
        throw InputError(arg + ": unknown option or global value '" + name + "'");
    }
    const std::string tidName = name.substr(0, pos);
    const std::string attr = name.substr(pos + 2);
    TypeId tid;
    if (!TypeId::LookupByNameFailSafe(tidName, &tid))
    {
        throw InputError(arg + ": unknown type '" + tidName + "'" +
                         DidYouMean(tidName, TypeIdNames()));
    }
    TypeId::AttributeInformation info;
    if (!tid.LookupAttributeByName(attr, &info))
    {
        throw InputError(arg + ": type " + tidName + " has no attribute '" + attr + "'" +
                         DidYouMean(attr, AttributeNames(tid)) +
                         " (list them with --PrintAttributes=" + tidName + ")");
    }
    if ((info.flags & TypeId::ATTR_CONSTRUCT) == 0)
    {
        throw InputError(arg + ": attribute " + name +
                         " cannot be given a default value (it is not set at construction)");
    }
    throw InputError(arg + ": " + BadValue(info.checker, value, aborted, reason) +
                     " for attribute " + name);
}

namespace
{

/// \return what an attribute takes, for messages \param info the attribute
std::string
Takes(const TypeId::AttributeInformation& info)
{
    std::string type = info.checker->GetValueTypeName();
    if (type.rfind("ns3::", 0) == 0)
    {
        type = type.substr(5);
    }
    return type + (info.checker->HasUnderlyingTypeInformation()
                       ? " (" + info.checker->GetUnderlyingTypeInformation() + ")"
                       : std::string());
}

} // namespace

std::vector<uint64_t>
ParseUnsignedList(const std::string& text, const std::string& option)
{
    std::vector<uint64_t> out;
    std::stringstream ss(text);
    std::string item;
    while (std::getline(ss, item, ','))
    {
        const std::string err = CheckOptionValue<uint64_t>(item);
        if (!err.empty() || item.empty())
        {
            throw InputError("--" + option + "=" + text + ": '" + item +
                             "' is not a non-negative integer");
        }
        out.push_back(std::stoull(item));
    }
    if (out.empty())
    {
        throw InputError("--" + option + " needs at least one value");
    }
    return out;
}

void
SetDefaultFromOption(const std::string& path,
                     const AttributeValue& value,
                     const std::string& option)
{
    if (Config::SetDefaultFailSafe(path, value))
    {
        return;
    }
    const size_t pos = path.rfind("::");
    TypeId tid;
    TypeId::AttributeInformation info;
    if (pos != std::string::npos && TypeId::LookupByNameFailSafe(path.substr(0, pos), &tid) &&
        tid.LookupAttributeByName(path.substr(pos + 2), &info))
    {
        throw InputError(option + ": not a valid " + path + "; it takes a " + Takes(info));
    }
    throw InputError(option + ": cannot set " + path);
}

void
SetAttributeFromOption(ObjectBase& object,
                       const std::string& name,
                       const AttributeValue& value,
                       const std::string& option)
{
    if (object.SetAttributeFailSafe(name, value))
    {
        return;
    }
    TypeId::AttributeInformation info;
    const TypeId tid = object.GetInstanceTypeId();
    if (tid.LookupAttributeByName(name, &info))
    {
        throw InputError(option + ": not a valid " + tid.GetName() + "::" + name + "; it takes a " +
                         Takes(info));
    }
    throw InputError(option + ": cannot set " + tid.GetName() + "::" + name);
}

AstraCommandLine::AstraCommandLine(const std::string& filename)
    : m_cmd(filename)
{
}

void
AstraCommandLine::Usage(const std::string& usage)
{
    m_cmd.Usage(usage);
}

CommandLine&
AstraCommandLine::Get()
{
    return m_cmd;
}

bool
AstraCommandLine::IsGiven(const std::string& name) const
{
    return std::find(m_given.begin(), m_given.end(), name) != m_given.end();
}

void
AstraCommandLine::Check(const std::vector<std::string>& args) const
{
    // handled by CommandLine itself, before any other argument
    const std::vector<std::string> hard = {"help",
                                           "PrintHelp",
                                           "PrintGlobals",
                                           "PrintGroups",
                                           "PrintGroup",
                                           "PrintTypeIds",
                                           "PrintAttributes",
                                           "PrintVersion",
                                           "version"};
    std::map<std::string, std::string> seen; // name -> first argument
    for (const auto& arg : args)
    {
        std::string a = arg;
        if (a.rfind("--", 0) == 0)
        {
            a = a.substr(2);
        }
        else if (a.rfind('-', 0) == 0)
        {
            a = a.substr(1);
        }
        else
        {
            throw InputError("unexpected argument '" + arg +
                             "' (arguments are options: --name=value; see --help)");
        }
        const size_t eq = a.find('=');
        const std::string name = a.substr(0, eq);
        const std::string value = eq == std::string::npos ? "" : a.substr(eq + 1);
        const auto first = seen.emplace(name, arg);
        if (!first.second)
        {
            throw InputError(arg + ": '--" + name + "' given twice (first as " +
                             first.first->second + "); give each option once");
        }
        if (std::find(hard.begin(), hard.end(), name) != hard.end())
        {
            TypeId tid;
            if (name == "PrintAttributes" && !TypeId::LookupByNameFailSafe(value, &tid))
            {
                throw InputError(arg + ": unknown type '" + value + "'" +
                                 DidYouMean(value, TypeIdNames()));
            }
            continue;
        }
        auto opt = std::find_if(m_options.begin(), m_options.end(), [&](const Option& o) {
            return o.name == name;
        });
        if (opt != m_options.end())
        {
            std::string err = opt->check(value);
            if (err.empty() && opt->range)
            {
                err = opt->range(value);
            }
            if (!err.empty())
            {
                throw InputError(arg + ": " + err);
            }
            continue;
        }
        if (name.find("::") == std::string::npos && FindGlobal(name) == nullptr)
        {
            std::vector<std::string> known = hard;
            for (const auto& o : m_options)
            {
                known.push_back(o.name);
            }
            for (auto it = GlobalValue::Begin(); it != GlobalValue::End(); ++it)
            {
                known.push_back((*it)->GetName());
            }
            const std::string m = ClosestMatch(name, known);
            throw InputError(
                arg + ": unknown option '--" + name + "'" +
                (m.empty() ? std::string(" (see --help)") : " (did you mean '--" + m + "'?)"));
        }
        CheckAttributeArgument(name, value);
    }
}

void
AstraCommandLine::Parse(int argc, char* argv[])
{
    std::vector<std::string> args;
    for (int i = 1; i < argc; ++i)
    {
        args.emplace_back(argv[i]);
    }
    Check(args);
    for (const auto& arg : args)
    {
        // attributes and global values (not the program's own options) are recorded
        const std::string a = arg.substr(arg.find_first_not_of('-'));
        const size_t eq = a.find('=');
        const std::string name = a.substr(0, eq);
        const bool option = std::find_if(m_options.begin(), m_options.end(), [&](const Option& o) {
                                return o.name == name;
                            }) != m_options.end();
        if (option)
        {
            m_given.push_back(name);
        }
        if (!option && (name.find("::") != std::string::npos || FindGlobal(name) != nullptr))
        {
            RecordGivenAttribute({name, eq == std::string::npos ? "" : a.substr(eq + 1), arg});
        }
    }
    m_cmd.Parse(argc, argv);
}

} // namespace astra
} // namespace ns3
