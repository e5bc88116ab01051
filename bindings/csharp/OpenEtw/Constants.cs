using System;
using System.Collections.Generic;
using System.Diagnostics.CodeAnalysis;
using System.Reflection;
using OpenEtw.Interop;

namespace OpenEtw
{
    /// <summary>
    /// Every #define constant of the C headers by its C name ("ETW_REAL_TIME_MODE"), for
    /// configuration files and tools that speak the C vocabulary. Code should prefer the
    /// enums (<see cref="LogFileMode"/>, <see cref="ClockType"/>, ...).
    /// </summary>
    public static class Constants
    {
        private static readonly Dictionary<string, object> ByName = Collect();

        /// <summary>The C names of all constants.</summary>
        public static IEnumerable<string> Names => ByName.Keys;

        /// <summary>An integer constant's value; false for unknown names and strings.</summary>
        public static bool TryGetValue(string name, out ulong value)
        {
            value = 0;
            if (!ByName.TryGetValue(name, out object? raw) || raw is string)
                return false;
            value = Convert.ToUInt64(raw, System.Globalization.CultureInfo.InvariantCulture);
            return true;
        }

        /// <summary>A string constant (ETW_KERNEL_LOGGER_NAME).</summary>
        public static bool TryGetString(string name, [NotNullWhen(true)] out string? value)
        {
            value = ByName.TryGetValue(name, out object? raw) ? raw as string : null;
            return value != null;
        }

        // The generated class holds them as C# const fields (%csconst in csharp.i).
        private static Dictionary<string, object> Collect()
        {
            var result = new Dictionary<string, object>(StringComparer.Ordinal);
            foreach (FieldInfo field in typeof(NativeMethods).GetFields(BindingFlags.Public | BindingFlags.Static))
            {
                if (field.IsLiteral && field.GetRawConstantValue() is object value)
                    result[field.Name] = value;
            }
            return result;
        }
    }
}
