import streamlit as st

st.title("Prompts")
st.info("This page is being built.")
