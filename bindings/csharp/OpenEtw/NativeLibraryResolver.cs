using System;
using System.IO;
using System.Reflection;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace OpenEtw.Interop
{
    /// <summary>
    /// Finds the native libraries by their real file names: libopenetw.so.1 (openetw-1.dll
    /// on Windows) and the SWIG glue libopenetw_csharp.so (openetw_csharp.dll). The default
    /// probing would look for libopenetw.so, which only development packages install.
    /// </summary>
    internal static class NativeLibraryResolver
    {
        internal const string Library = "openetw";
        internal const string Glue = "openetw_csharp";

        /// <summary>Overrides every other place: a folder holding both libraries.</summary>
        internal const string DirectoryVariable = "OPENETW_NATIVE_DIR";

        private static readonly object Gate = new object();
        private static IntPtr s_library;
        private static IntPtr s_glue;

        // Runs when the assembly loads, before any P/Invoke can: the resolver must be in
        // place before the first call, which may come from any class (CA2255 is for apps).
#pragma warning disable CA2255
        [ModuleInitializer]
#pragma warning restore CA2255
        internal static void Register() =>
            NativeLibrary.SetDllImportResolver(typeof(NativeLibraryResolver).Assembly, Resolve);

        private static IntPtr Resolve(string name, Assembly assembly, DllImportSearchPath? searchPath)
        {
            if (name != Library && name != Glue)
                return IntPtr.Zero;
            lock (Gate)
            {
                // The glue links libopenetw: loading it first from the same place makes the
                // dynamic linker reuse it, whatever the glue's RPATH says.
                if (s_library == IntPtr.Zero)
                    s_library = Load(LibraryFileName, assembly, searchPath);
                if (name == Glue && s_glue == IntPtr.Zero)
                    s_glue = Load(GlueFileName, assembly, searchPath);
                return name == Library ? s_library : s_glue;
            }
        }

        internal static string LibraryFileName =>
            OperatingSystem.IsWindows() ? "openetw-1.dll"
            : OperatingSystem.IsMacOS() ? "libopenetw.1.dylib" : "libopenetw.so.1";

        internal static string GlueFileName =>
            OperatingSystem.IsWindows() ? "openetw_csharp.dll"
            : OperatingSystem.IsMacOS() ? "libopenetw_csharp.dylib" : "libopenetw_csharp.so";

        internal static string RuntimeId
        {
            get
            {
                string os = OperatingSystem.IsWindows() ? "win" : OperatingSystem.IsMacOS() ? "osx" : "linux";
                return os + "-" + RuntimeInformation.ProcessArchitecture.ToString().ToLowerInvariant();
            }
        }

        private static IntPtr Load(string fileName, Assembly assembly, DllImportSearchPath? searchPath)
        {
            foreach (string directory in Candidates(assembly))
            {
                string path = Path.Combine(directory, fileName);
                if (File.Exists(path) && NativeLibrary.TryLoad(path, out IntPtr handle))
                    return handle;
            }
            // Installed system-wide: let the platform loader search its paths.
            if (NativeLibrary.TryLoad(fileName, assembly, searchPath, out IntPtr system))
                return system;
            throw new DllNotFoundException(
                $"OpenETW: {fileName} was not found next to the application, in runtimes/{RuntimeId}/native, " +
                $"in ${DirectoryVariable}, or on the system library path.");
        }

        private static System.Collections.Generic.IEnumerable<string> Candidates(Assembly assembly)
        {
            string? overrideDir = Environment.GetEnvironmentVariable(DirectoryVariable);
            if (!string.IsNullOrEmpty(overrideDir))
                yield return overrideDir;
            string nativeSubdir = Path.Combine("runtimes", RuntimeId, "native");
            foreach (string? root in new[] { AppContext.BaseDirectory, Path.GetDirectoryName(assembly.Location) })
            {
                if (string.IsNullOrEmpty(root))
                    continue;
                yield return root;
                yield return Path.Combine(root, nativeSubdir);
            }
        }
    }
}
