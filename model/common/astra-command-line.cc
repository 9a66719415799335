/*
 * Checked command lines (astra-command-line.h).
 */

#include "astra-command-line.h"

#include "ns3/astra-input.h"
#include "ns3/config.h"
#include "ns3/global-value.h"
#include "ns3/string.h"
#include "ns3/type-id.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <fcntl.h>
#include <iostream>
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

} // namespace

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
            const std::string err = opt->check(value);
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
    m_cmd.Parse(argc, argv);
}

} // namespace astra
} // namespace ns3
