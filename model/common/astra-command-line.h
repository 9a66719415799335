/*
 * ns-3's CommandLine with every argument checked before it is applied, so that
 * a bad argument ends in a message naming it (an InputError, exit status 1
 * through RunMain) instead of ns-3.37's reactions: the whole help text after
 * "Invalid command-line argument" for an unknown option, attribute or TypeId
 * value; SIGABRT for a malformed number in an attribute or global value
 * ("--ns3::RdmaHostStack::Mtu=abc") or an unknown type in --PrintAttributes;
 * and silent acceptance of "--hang-ns=12abc" (read as 12), of a negative
 * number for an unsigned option (wrapped), of text after a space in a string
 * option, and of stray positional arguments.
 */

#ifndef ASTRA_COMMAND_LINE_H
#define ASTRA_COMMAND_LINE_H

#include "ns3/astra-diagnostics.h"
#include "ns3/attribute.h"
#include "ns3/command-line.h"
#include "ns3/object-base.h"

#include <cctype>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace ns3
{
namespace astra
{

/**
 * \ingroup astra-sim
 * Run a check in a child process, for values that ns-3 answers with an abort
 * when malformed (a Time or DataRate, an attribute of a number type).
 * \param check returns whether the value is good
 * \param reason set to ns-3's message if the child aborted ("" otherwise)
 * \return 1 the check returned true, 0 it returned false, -1 the child aborted;
 *         1 also when no child could be started (the value is then left to ns-3)
 */
int CheckInChild(const std::function<bool()>& check, std::string* reason);

/**
 * \ingroup astra-sim
 * How a program option's value is checked: "" if \p value is a valid value
 * for an option of type T (the whole text is read), else what is wrong.
 * \param value the text after '='
 * \return "" or the problem
 */
template <typename T>
std::string
CheckOptionValue(const std::string& value)
{
    if constexpr (std::is_same_v<T, bool>)
    {
        // exactly what CommandLine reads as a bool: nothing ("--flag"), true/false, t/f, 1/0
        std::string v = value;
        for (auto& c : v)
        {
            c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        }
        const bool ok = value.empty() || v == "true" || v == "false" || v == "t" || v == "f" ||
                        v == "1" || v == "0";
        return ok ? std::string() : std::string("expected true/false or 1/0");
    }
    else if constexpr (std::is_same_v<T, std::string>)
    {
        if (value.empty())
        {
            return "empty value";
        }
        for (char c : value)
        {
            if (std::isspace(static_cast<unsigned char>(c)))
            {
                return "contains a space (ns-3's CommandLine keeps only the first word)";
            }
        }
        return "";
    }
    else if constexpr (!std::is_arithmetic_v<T>)
    {
        // ns-3 types (Time, DataRate, ...) abort on a malformed value: read it in a child
        std::string reason;
        const int ok = CheckInChild(
            [&value]() {
                std::istringstream iss(value);
                T v{};
                iss >> v;
                return !iss.fail() && (iss >> std::ws).eof();
            },
            &reason);
        return ok == 1 ? std::string() : (reason.empty() ? "malformed value" : reason);
    }
    else
    {
        const bool isUnsigned = std::is_integral_v<T> && std::is_unsigned_v<T>;
        if (isUnsigned && value.find('-') != std::string::npos)
        {
            return "expected a non-negative integer";
        }
        std::istringstream iss(value);
        T v{};
        if constexpr (std::is_same_v<T, uint8_t> || std::is_same_v<T, int8_t>)
        {
            int wide = 0;
            iss >> wide;
            v = static_cast<T>(wide);
        }
        else
        {
            iss >> v;
        }
        if (iss.fail() || !(iss >> std::ws).eof())
        {
            return std::is_integral_v<T> ? "expected an integer" : "expected a number";
        }
        return "";
    }
}

/**
 * \ingroup astra-sim
 * The range of a numeric program option (AstraCommandLine::AddValue), checked
 * after the value was read: [min, max], or (min, max] when minOpen.
 */
struct OptionRange
{
    double min;           //!< smallest value
    double max;           //!< largest value
    bool minOpen{false};  //!< min itself is excluded (strictly positive quantities)
    std::string unit{""}; //!< the unit, for messages ("ns", "GB/s")

    /// \return [lo, hi] \param lo smallest \param hi largest \param unit unit for messages
    static OptionRange Closed(double lo, double hi, const std::string& unit = "");
    /// \return (0, hi] \param hi largest \param unit unit for messages
    static OptionRange Positive(double hi, const std::string& unit = "");
    /// \return "" if \p v is inside, else what is wrong \param v the value
    std::string Check(double v) const;
};

/**
 * \ingroup astra-sim
 * What is wrong with an attribute or global value's text before ns-3 reads
 * it ("" if nothing): no spaces in a value of a number, time, rate, switch or
 * TypeId; an unsigned integer has no sign; a double is finite; a time is a
 * finite, non-negative number with one of ns-3's units and at most
 * 1e15 ns; a data rate is a non-negative number with one of ns-3's units, at
 * most 1e15 bit/s (ns-3 would overflow or abort on larger ones); a TypeId is
 * registered (with a did-you-mean). Shared by the command line and the RoCE
 * configuration files.
 * \param value the value
 * \param checker the attribute's checker
 * \return "" or the problem
 */
std::string CheckAttributeValueSyntax(const std::string& value,
                                      const Ptr<const AttributeChecker>& checker);

/**
 * \ingroup astra-sim
 * An attribute default or global value a user gave (on the command line or in
 * a RoCE configuration file), recorded so that a program can tell which of
 * them its run uses (AstraSimScenario rejects fabric attributes on a backend
 * without a fabric).
 */
struct GivenAttribute
{
    std::string name;  //!< "ns3::Type::Attribute" or a global's name
    std::string value; //!< the value
    std::string where; //!< "--ns3::Type::Attribute=v" or the file
};

/// \ingroup astra-sim \return the attributes given so far in this process
const std::vector<GivenAttribute>& GetGivenAttributes();
/// \ingroup astra-sim Record one given attribute \param a the attribute
void RecordGivenAttribute(const GivenAttribute& a);
/// \ingroup astra-sim Forget the given attributes (tests)
void ClearGivenAttributes();

/**
 * \ingroup astra-sim
 * Check one attribute or global-value argument as CommandLine would apply it
 * (Config::SetGlobalFailSafe, then Config::SetDefaultFailSafe), without
 * applying it: the value is tried in a child process, so that ns-3's abort
 * on a malformed number cannot end this one.
 * \param name the argument's name, e.g. "ns3::RdmaHostStack::Mtu" or "RngSeed"
 * \param value its value
 * \throw InputError naming the argument: unknown type or attribute or global
 *        value (with a "did you mean"), unknown TypeId or enum value (with a
 *        "did you mean"), a malformed or out-of-range value (with what the
 *        attribute takes)
 */
void CheckAttributeArgument(const std::string& name, const std::string& value);

/**
 * \ingroup astra-sim
 * Parse a program option's comma-separated list of non-negative integers.
 * \param text the option's value, e.g. "64,256"
 * \param option the option's name (without "--"), for messages
 * \return the numbers (at least one)
 * \throw InputError naming the option and the bad entry
 */
std::vector<uint64_t> ParseUnsignedList(const std::string& text, const std::string& option);

/**
 * \ingroup astra-sim
 * Config::SetDefault for a value that came from a program option: a value the
 * attribute does not accept is an InputError naming the option (ns-3's
 * Config::SetDefault would abort).
 * \param path the attribute, e.g. "ns3::RdmaHostStack::Mtu"
 * \param value the value
 * \param option the option it came from, e.g. "--mtu=70000"
 * \throw InputError naming the option and what the attribute takes
 */
void SetDefaultFromOption(const std::string& path,
                          const AttributeValue& value,
                          const std::string& option);

/**
 * \ingroup astra-sim
 * ObjectBase::SetAttribute for a value that came from a program option: a
 * value the attribute does not accept is an InputError naming the option
 * (ns-3's SetAttribute would abort).
 * \param object the object
 * \param name the attribute
 * \param value the value
 * \param option the option it came from, e.g. "--hang-ns=0"
 * \throw InputError naming the option and what the attribute takes
 */
void SetAttributeFromOption(ObjectBase& object,
                            const std::string& name,
                            const AttributeValue& value,
                            const std::string& option);

/**
 * \ingroup astra-sim
 * A CommandLine whose Parse() first checks every argument (program options
 * by their type, attributes and global values with
 * CheckAttributeArgument(), the type of --PrintAttributes, and that there is
 * no positional argument), then hands them to ns-3's CommandLine.
 *
 * \code
 * AstraCommandLine cmd(__FILE__);
 * cmd.AddValue("hang-ns", "...", hangNs);
 * cmd.Parse(argc, argv);      // throws InputError naming a bad argument
 * \endcode
 */
class AstraCommandLine
{
  public:
    /// \param filename the program's source file (__FILE__), as for CommandLine
    explicit AstraCommandLine(const std::string& filename = "");

    /// \param usage the program's description (CommandLine::Usage)
    void Usage(const std::string& usage);

    /**
     * Add a program option (CommandLine::AddValue).
     * \param name option name (without "--")
     * \param help help text
     * \param value the variable it sets
     */
    template <typename T>
    void AddValue(const std::string& name, const std::string& help, T& value)
    {
        m_cmd.AddValue(name, help, value);
        m_options.push_back({name, &CheckOptionValue<T>, nullptr});
    }

    /**
     * Add a numeric program option whose value must lie in a range.
     * \param name option name (without "--")
     * \param help help text
     * \param value the variable it sets
     * \param range the values accepted
     */
    template <typename T>
    void AddValue(const std::string& name, const std::string& help, T& value, OptionRange range)
    {
        static_assert(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>,
                      "a range applies to numeric options");
        m_cmd.AddValue(name, help, value);
        auto r = std::make_shared<OptionRange>(range);
        m_options.push_back({name, &CheckOptionValue<T>, [r](const std::string& v) {
                                 std::istringstream iss(v);
                                 long double x = 0;
                                 iss >> x;
                                 return r->Check(static_cast<double>(x));
                             }});
    }

    /**
     * Check every argument, then CommandLine::Parse.
     * \param argc argument count
     * \param argv arguments
     * \throw InputError naming the first bad argument
     */
    void Parse(int argc, char* argv[]);

    /**
     * Check the arguments without parsing them.
     * \param args the arguments (without the program name)
     * \throw InputError naming the first bad argument
     */
    void Check(const std::vector<std::string>& args) const;

    /// \return the wrapped CommandLine
    CommandLine& Get();

    /// \return whether Parse() saw the option \p name (without "--") on the command line
    /// \param name the option
    bool IsGiven(const std::string& name) const;

  private:
    /// A program option and its value check.
    struct Option
    {
        std::string name;                                       //!< option name
        std::string (*check)(const std::string&);               //!< CheckOptionValue<T>
        std::function<std::string(const std::string&)> range{}; //!< range check (or empty)
    };

    CommandLine m_cmd;                //!< ns-3's command line
    std::vector<Option> m_options;    //!< the program options
    std::vector<std::string> m_given; //!< options seen by Parse()
};

} // namespace astra
} // namespace ns3

#endif /* ASTRA_COMMAND_LINE_H */
